import { InvalidCursorError } from './record.errors.ts';

/*
 * Cursors are opaque to callers: a versioned position, base64url-encoded. A position only ever moves within the
 * namespace the caller's Scope already selects, and each listing checks that the position lies in the key range
 * of the query it continues, so a forged cursor can neither escape the namespace nor reach the storage engine
 * out of range. A cursor handed to a caller is also bound to the listing that issued it (`bindCursor`): sent
 * with any other listing — another route, record, filter or caller — it is refused before anything is read.
 */

/** DynamoDB refuses a sort key over 1024 bytes; a position is one, so it stays well inside. */
const MAX_POSITION_BYTES = 512;

interface DecodedCursor {
  readonly position: string;
  /** The digest of the listing the cursor was issued for; absent on a cursor not yet handed to a caller. */
  readonly listing: string | undefined;
}

export const encodeCursor = (position: string): string => encode({ position, listing: undefined });

/** The position in `cursor`, which `belongs` must accept as a position of the listing it continues. */
export const decodeCursor = (cursor: string, belongs: (position: string) => boolean): string => {
  const { position } = decode(cursor);
  if (!belongs(position)) throw new InvalidCursorError();
  return position;
};

/** The cursor a caller is given: `cursor`, bound to the listing (a digest of what identifies it) that issued it. */
export const bindCursor = (cursor: string, listing: string): string =>
  encode({ position: decode(cursor).position, listing });

/** The cursor a caller sent, once it is shown to be bound to this listing; refused otherwise. */
export const unbindCursor = (cursor: string, listing: string): string => {
  const decoded = decode(cursor);
  if (decoded.listing !== listing) throw new InvalidCursorError();
  return encodeCursor(decoded.position);
};

const encode = ({ position, listing }: DecodedCursor): string =>
  Buffer.from(JSON.stringify({ v: 1, p: position, ...(listing !== undefined && { l: listing }) }), 'utf8').toString(
    'base64url',
  );

const decode = (cursor: string): DecodedCursor => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (typeof decoded !== 'object' || decoded === null) throw new InvalidCursorError();
  const { v, p, l } = decoded as { v?: unknown; p?: unknown; l?: unknown };
  if (v !== 1 || typeof p !== 'string' || !isStorablePosition(p)) throw new InvalidCursorError();
  if (l !== undefined && typeof l !== 'string') throw new InvalidCursorError();
  return { position: p, listing: l };
};

/** A position the storage engine takes as a key: non-empty, well-formed text, within the size limit. */
const isStorablePosition = (position: string): boolean =>
  position.length > 0 && position.isWellFormed() && Buffer.byteLength(position, 'utf8') <= MAX_POSITION_BYTES;
