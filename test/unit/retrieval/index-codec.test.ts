import { describe, expect, it } from 'vitest';
import {
  decodeChanges,
  decodeSnapshot,
  encodeChanges,
  encodeSnapshot,
} from '../../../lambdas/capabilities/retrieval/embedded/index-codec.ts';
import type { SearchDocument } from '../../../lambdas/kernel/search/search-document.ts';

const document = (vector: number[]): SearchDocument => ({
  id: 'n1',
  kind: 'note',
  revision: 2,
  createdAt: '2026-06-01T00:00:00.000Z',
  updatedAt: '2026-06-02T00:00:00.000Z',
  expiresAt: '2027-06-01T00:00:00.000Z',
  text: 'Offsite in Lisbon — 東京 too',
  states: ['active'],
  tags: ['offsite'],
  edges: { entity: ['lisbon'] },
  vector,
  model: 'feature-hashing-blake2b-256',
});

describe('index codec', () => {
  const sparse = Array.from({ length: 256 }, (_, index) => (index % 50 === 0 ? 0.25 : 0));
  const dense = Array.from({ length: 256 }, (_, index) => (index + 1) / 256);

  it.each([
    ['a sparse vector', sparse],
    ['a dense vector', dense],
  ])('gives back exactly the changes it was given, with %s', (_, vector) => {
    // Prepare
    const changes = [
      { type: 'upsert' as const, document: document(vector) },
      { type: 'remove' as const, id: 'n0', revision: 4 },
    ];

    // Act
    const decoded = decodeChanges(encodeChanges(changes));

    // Assess
    expect(decoded).toEqual(changes);
  });

  it('writes a mostly-zero vector smaller than a dense one', () => {
    const sizeOf = (vector: number[]) => encodeChanges([{ type: 'upsert', document: document(vector) }]).length;
    expect(sizeOf(sparse)).toBeLessThan(sizeOf(dense) / 2);
  });

  it('gives back a snapshot’s documents and removals', () => {
    // Prepare
    const snapshot = { documents: [document(sparse)], removed: [['gone', 3]] as [string, number][] };

    // Act
    const decoded = decodeSnapshot(encodeSnapshot(snapshot));

    // Assess
    expect(decoded).toEqual(snapshot);
  });

  it('refuses a body that is not one of its own', () => {
    const foreign = encodeSnapshot({ documents: [], removed: [] });
    expect(() => decodeChanges(foreign)).toThrow();
  });
});
