/*
 * An Encryption SDK message stored without its encryption context. The header carries the context in clear (here
 * the tenant, the namespace and the record id, about 140 bytes), though every reader already knows it — it is the
 * context the reader expects, and is refused without. So it is left out of what is stored and put back, from the
 * expected context, before decryption: the header's authentication tag covers the context as put back, so a
 * message read under any other context fails to decrypt, exactly as the full message would. This is what the
 * SDK's "required encryption context" does in its other languages; the JavaScript SDK has none.
 *
 * Layout (message format version 2): the version byte, the suite id (2 bytes) and the message id (32 bytes), then
 * the serialised context (its 2-byte length, then the pairs), then the rest of the header and the body. Stored:
 * `CONTEXT_LEFT_OUT`, the suite id and message id, then the rest — the version byte and the context taken out.
 */

/** The first byte of a message stored without its context (a whole message starts with its version, 1 or 2). */
export const CONTEXT_LEFT_OUT = 0xe2;
const VERSION_2 = 0x02;
/** Where a version 2 header's serialised context starts. */
export const CONTEXT_OFFSET = 1 + 2 + 32;

/**
 * The context as the SDK serialises it into a header: its length, the pair count, pairs sorted by key bytes.
 * The SDK's own serialiser is in @aws-crypto/serialize, which the SDK brings when it loads (lazily, after init:
 * encryption-sdk.ts); importing it here would evaluate it at init. A copy that ever differed costs only bytes:
 * `leaveContextOut` compares it with the header and stores the whole message when they differ.
 */
const serialisedContext = (context: Readonly<Record<string, string>>): Buffer => {
  const pairs = Object.entries(context)
    .map(([key, value]) => [Buffer.from(key, 'utf8'), Buffer.from(value, 'utf8')] as const)
    .sort(([a], [b]) => Buffer.compare(a, b));
  if (pairs.length === 0) return Buffer.from([0, 0]);
  const parts: Buffer[] = [Buffer.alloc(2)];
  for (const [key, value] of pairs) {
    const keyLength = Buffer.alloc(2);
    keyLength.writeUInt16BE(key.length);
    const valueLength = Buffer.alloc(2);
    valueLength.writeUInt16BE(value.length);
    parts.push(keyLength, key, valueLength, value);
  }
  const body = Buffer.concat(parts);
  body.writeUInt16BE(pairs.length, 0);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(body.length);
  return Buffer.concat([length, body]);
};

/**
 * The message without its context, when the header holds exactly `context` as the SDK serialises it; the whole
 * message otherwise (another format version, another serialisation): never a form that could not be put back.
 */
export const leaveContextOut = (message: Uint8Array, context: Readonly<Record<string, string>>): Uint8Array => {
  if (message[0] !== VERSION_2) return message;
  const serialised = serialisedContext(context);
  const held = message.subarray(CONTEXT_OFFSET, CONTEXT_OFFSET + serialised.length);
  if (!serialised.equals(held)) return message;
  // The marker takes the version byte's place: only the context's bytes are saved.
  const stored = new Uint8Array(message.length - serialised.length);
  stored[0] = CONTEXT_LEFT_OUT;
  stored.set(message.subarray(1, CONTEXT_OFFSET), 1);
  stored.set(message.subarray(CONTEXT_OFFSET + serialised.length), CONTEXT_OFFSET);
  return stored;
};

/** The whole message again, `context` put back where it was left out; a whole message is returned as it is. */
export const putContextBack = (stored: Uint8Array, context: Readonly<Record<string, string>>): Uint8Array => {
  if (stored[0] !== CONTEXT_LEFT_OUT || stored.length < CONTEXT_OFFSET) return stored;
  const serialised = serialisedContext(context);
  const message = new Uint8Array(stored.length + serialised.length);
  message[0] = VERSION_2;
  message.set(stored.subarray(1, CONTEXT_OFFSET), 1);
  message.set(serialised, CONTEXT_OFFSET);
  message.set(stored.subarray(CONTEXT_OFFSET), CONTEXT_OFFSET + serialised.length);
  return message;
};
