import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentCipher, EncryptionContext } from '../../lambdas/kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../lambdas/kernel/crypto/crypto.errors.ts';
import { KINDS } from '../support/record-kinds.ts';
import { newRecordId } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

export interface ContentCipherFixture {
  readonly cipher: ContentCipher;
  /** The same keys reached by another process (another Lambda instance, a restarted server): nothing cached. */
  readonly peer: ContentCipher;
  /** The same kind of cipher over another key (another tenant's KMS key and key store, another key file). */
  readonly foreign: ContentCipher;
  close(): Promise<void>;
}

/** The context a record's content is encrypted under, as the revision items build it. */
export const contextOf = (tenant: string, sub: string): EncryptionContext => {
  const namespace = scopeOf({ tenant, sub }).namespace(KINDS.note);
  return { tenant: namespace.tenant, namespace: namespace.key, recordId: newRecordId() };
};

const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/**
 * What every ContentCipher must do: give back exactly what it encrypted, under exactly the context it was
 * encrypted for, and nothing under any other (another tenant, namespace or record, another key, altered
 * bytes), refusing with CiphertextContextMismatchError; never show the plaintext in the ciphertext; never
 * produce the same ciphertext twice; open in another process over the same keys what one process wrote. Runs
 * against the Encryption SDK cipher over branch keys in both modes (the local KMS, and the KMS stand-in), over
 * the bare local key, and the caching cipher over them.
 */
export const describeContentCipherContract = (name: string, create: () => Promise<ContentCipherFixture>) => {
  describe(`Contract: ContentCipher (${name})`, () => {
    let fixture: ContentCipherFixture;
    const context = contextOf('acme', 'alice');

    // One key service per suite, as a process has: the tests do not depend on each other's ciphertexts.
    beforeAll(async () => {
      fixture = await create();
    });

    afterAll(async () => {
      await fixture?.close();
    });

    describe('Method: encrypt, then decrypt', () => {
      it.each([
        ['empty', 0],
        ['one byte', 1],
        ['one AES block less a byte', 15],
        ['4 KiB and a byte', 4097],
        ['64 KiB', 65_536],
      ])('gives back exactly the plaintext under the same context (%s)', async (_, size) => {
        // Prepare
        const plaintext = new Uint8Array(randomBytes(size));

        // Act
        const ciphertext = await fixture.cipher.encrypt(plaintext, context);
        const decrypted = await fixture.cipher.decrypt(ciphertext, context);

        // Assess
        expect(Buffer.from(decrypted).equals(Buffer.from(plaintext))).toBe(true);
        expect(decrypted).toHaveLength(size);
      });

      it('does not show the plaintext in the ciphertext', async () => {
        // Prepare: text long enough that finding it by chance is impossible
        const plaintext = bytesOf('{"content":{"text":"the pangolin hides the spare key under the third pot"}}');

        // Act
        const ciphertext = await fixture.cipher.encrypt(plaintext, context);

        // Assess
        const stored = Buffer.from(ciphertext);
        expect(stored.includes(Buffer.from(plaintext))).toBe(false);
        expect(stored.toString('latin1')).not.toContain('pangolin');
      });

      it('gives back in another process over the same keys what this one wrote, and the other way round', async () => {
        // Prepare: another record of the same owner, so the peer meets keys it has not used yet
        const elsewhere = { ...context, recordId: newRecordId() };
        const mine = await fixture.cipher.encrypt(bytesOf('written here'), context);
        const theirs = await fixture.peer.encrypt(bytesOf('written there'), elsewhere);

        // Act
        const readThere = await fixture.peer.decrypt(mine, context);
        const readHere = await fixture.cipher.decrypt(theirs, elsewhere);

        // Assess
        expect(Buffer.from(readThere).toString()).toBe('written here');
        expect(Buffer.from(readHere).toString()).toBe('written there');
      });

      it('never produces the same ciphertext twice for the same plaintext and context', async () => {
        // Prepare
        const plaintext = bytesOf('same words, same record');

        // Act
        const [first, second] = [
          await fixture.cipher.encrypt(plaintext, context),
          await fixture.cipher.encrypt(plaintext, context),
        ];

        // Assess: both still open to the plaintext
        expect(Buffer.from(first).equals(Buffer.from(second))).toBe(false);
        expect(Buffer.from(await fixture.cipher.decrypt(second, context)).toString()).toBe('same words, same record');
      });
    });

    describe('Method: decrypt, under a context the ciphertext was not made for', () => {
      it.each([
        ['another tenant', { tenant: 'globex' }],
        ['another namespace', { namespace: contextOf('acme', 'bob').namespace }],
        ['another record', { recordId: newRecordId() }],
      ])('refuses %s with CiphertextContextMismatchError', async (_, change: Partial<EncryptionContext>) => {
        // Prepare
        const ciphertext = await fixture.cipher.encrypt(bytesOf('alice’s note'), context);
        // Read once where it belongs, so a cache that answered by ciphertext alone would be caught
        await fixture.cipher.decrypt(ciphertext, context);

        // Act
        const decrypting = fixture.cipher.decrypt(ciphertext, { ...context, ...change });

        // Assess
        await expect(decrypting).rejects.toBeInstanceOf(CiphertextContextMismatchError);
      });

      it('refuses a ciphertext made under another key with CiphertextContextMismatchError', async () => {
        // Prepare
        const ciphertext = await fixture.foreign.encrypt(bytesOf('globex’s note'), context);

        // Act
        const decrypting = fixture.cipher.decrypt(ciphertext, context);

        // Assess
        await expect(decrypting).rejects.toBeInstanceOf(CiphertextContextMismatchError);
      });

      it('refuses a ciphertext altered in one byte with CiphertextContextMismatchError', async () => {
        // Prepare: the last byte belongs to the authentication tag of the message body
        const ciphertext = Buffer.from(await fixture.cipher.encrypt(bytesOf('do not change me'), context));
        ciphertext[ciphertext.length - 1] = (ciphertext[ciphertext.length - 1] as number) ^ 0x01;

        // Act
        const decrypting = fixture.cipher.decrypt(new Uint8Array(ciphertext), context);

        // Assess
        await expect(decrypting).rejects.toBeInstanceOf(CiphertextContextMismatchError);
      });
    });
  });
};
