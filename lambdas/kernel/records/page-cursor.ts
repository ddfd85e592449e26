import { InvalidCursorError } from './record.errors.ts';

/**
 * Cursors are opaque to callers: a versioned position, base64url-encoded. A position only ever moves
 * within the namespace the caller's Scope already selects, and each listing checks that the position
 * belongs to it, so a forged cursor can neither escape the namespace nor cross from one listing to another.
 */
export const encodeCursor = (position: string): string =>
  Buffer.from(JSON.stringify({ v: 1, p: position }), 'utf8').toString('base64url');

export const decodeCursor = (cursor: string, belongs: (position: string) => boolean): string => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (typeof decoded !== 'object' || decoded === null) throw new InvalidCursorError();
  const { v, p } = decoded as { v?: unknown; p?: unknown };
  if (v !== 1 || typeof p !== 'string' || p.length > 512 || !belongs(p)) throw new InvalidCursorError();
  return p;
};
