import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../lambdas/kernel/records/page-cursor.ts';
import { InvalidCursorError } from '../../../lambdas/kernel/records/record.errors.ts';
import { Provenance, RecordStatus, RevisionPayload } from '../../../lambdas/kernel/records/record.schema.ts';

const actor = { principal: 'alice', client: 'app' };
const provenance = { createdBy: actor, revisedBy: actor, sourceEventIds: ['e1'] };

describe('Schema: RevisionPayload', () => {
  it('reads back what is encrypted for a revision, and nothing more', () => {
    expect(RevisionPayload.parse({ content: { text: 'x' }, provenance })).toEqual({
      content: { text: 'x' },
      provenance,
    });
    expect(RevisionPayload.parse({ content: null, provenance })).toEqual({ content: null, provenance });
    expect(() => RevisionPayload.parse({ content: 1, provenance, extra: true })).toThrow();
    expect(() => RevisionPayload.parse({ content: 1 })).toThrow();
  });
});

describe('Schema: Provenance', () => {
  it('takes actors of a principal and a client, and up to 50 source events', () => {
    const sources = (count: number) => Array.from({ length: count }, (_, index) => `e${index}`);

    expect(Provenance.parse({ ...provenance, sourceEventIds: [] }).sourceEventIds).toEqual([]);
    expect(Provenance.parse({ ...provenance, sourceEventIds: sources(50) }).sourceEventIds).toHaveLength(50);
    expect(() => Provenance.parse({ ...provenance, sourceEventIds: sources(51) })).toThrow();
    expect(() => Provenance.parse({ ...provenance, createdBy: { principal: 'alice' } })).toThrow();
    expect(() => Provenance.parse({ ...provenance, revisedBy: { ...actor, role: 'admin' } })).toThrow();
    expect(() => Provenance.parse({ createdBy: actor, revisedBy: actor })).toThrow();
  });
});

describe('Schema: RecordStatus', () => {
  it('is active or deleted', () => {
    expect(RecordStatus.options).toEqual(['active', 'deleted']);
    expect(() => RecordStatus.parse('archived')).toThrow();
  });
});

describe('Function: encodeCursor and decodeCursor', () => {
  const anywhere = () => true;
  const cursorOf = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');

  it('round-trips a position as opaque base64url text', () => {
    const cursor = encodeCursor('H#01J0000000000000000000000A');

    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, anywhere)).toBe('H#01J0000000000000000000000A');
  });

  it('takes positions of up to 512 bytes, counted in UTF-8', () => {
    expect(decodeCursor(encodeCursor('x'.repeat(512)), anywhere)).toHaveLength(512);
    expect(decodeCursor(encodeCursor('é'.repeat(256)), anywhere)).toHaveLength(256);
    expect(() => decodeCursor(encodeCursor('x'.repeat(513)), anywhere)).toThrow(InvalidCursorError);
    expect(() => decodeCursor(encodeCursor('é'.repeat(257)), anywhere)).toThrow(InvalidCursorError);
  });

  it.each([
    ['JSON null', cursorOf(null)],
    ['a number', cursorOf(7)],
    ['another version', cursorOf({ v: 2, p: 'H#x' })],
    ['a position that is not text', cursorOf({ v: 1, p: 7 })],
    ['an empty position', cursorOf({ v: 1, p: '' })],
    ['a position with a lone surrogate', cursorOf({ v: 1, p: '\ud800' })],
  ])('refuses a cursor holding %s', (_, cursor) => {
    expect(() => decodeCursor(cursor, anywhere)).toThrow(InvalidCursorError);
  });
});
