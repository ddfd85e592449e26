import { describe, expect, it } from 'vitest';
import { bindCursor, decodeCursor, encodeCursor, unbindCursor } from '../../../lambdas/kernel/records/page-cursor.ts';
import { InvalidCursorError } from '../../../lambdas/kernel/records/record.errors.ts';

const anyPosition = () => true;
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('Module: page-cursor', () => {
  describe('Function: decodeCursor', () => {
    it('gives back the position encoded, once the listing accepts it', () => {
      expect(decodeCursor(encodeCursor('H#01J'), (position) => position.startsWith('H#'))).toBe('H#01J');
    });

    it('refuses a position the listing does not accept', () => {
      expect(() => decodeCursor(encodeCursor('R#01J'), (position) => position.startsWith('H#'))).toThrow(
        InvalidCursorError,
      );
    });

    it('refuses what no listing issues: garbage, another version, an empty, oversized or ill-formed position', () => {
      const refused = [
        'not base64 json',
        cursorOf(null),
        cursorOf({ v: 2, p: 'H#1' }),
        cursorOf({ v: 1, p: 7 }),
        cursorOf({ v: 1, p: '' }),
        cursorOf({ v: 1, p: 'H#'.padEnd(513, 'x') }),
        // 400 characters of three bytes each: within 512 characters, past the 1024 bytes DynamoDB takes as a key.
        cursorOf({ v: 1, p: `H#${'€'.repeat(400)}` }),
        cursorOf({ v: 1, p: 'H#\ud800' }),
        cursorOf({ v: 1, p: 'H#1', l: 5 }),
      ];
      for (const cursor of refused) expect(() => decodeCursor(cursor, anyPosition), cursor).toThrow(InvalidCursorError);
    });
  });

  describe('Function: bindCursor / unbindCursor', () => {
    it('binds a cursor to the listing that issued it, and gives it back to that listing', () => {
      const bound = bindCursor(encodeCursor('H#01J'), 'listing-a');

      const unbound = unbindCursor(bound, 'listing-a');

      expect(decodeCursor(unbound, anyPosition)).toBe('H#01J');
    });

    it('refuses a cursor bound to another listing, or bound to none', () => {
      const bound = bindCursor(encodeCursor('H#01J'), 'listing-a');

      expect(() => unbindCursor(bound, 'listing-b')).toThrow(InvalidCursorError);
      expect(() => unbindCursor(encodeCursor('H#01J'), 'listing-a')).toThrow(InvalidCursorError);
    });

    it('keeps the position checks on the cursor a listing gets back', () => {
      const forged = cursorOf({ v: 1, p: '', l: 'listing-a' });

      expect(() => unbindCursor(forged, 'listing-a')).toThrow(InvalidCursorError);
    });
  });
});
