import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod';
import { IndexChange, SearchDocument } from '../../../kernel/search/search-document.ts';

/*
 * How the embedded index is written down: a log entry is a batch of changes, a snapshot is every document and
 * every removal the index knows as of a sequence. JSON, deflated (text and JSON shrink to about a third), then
 * sealed by the store. Vectors of the default embedder are mostly zeros (a short text touches a few dozen of
 * 256 dimensions), so a vector is written sparse when that is smaller.
 */

const SparseVector = z
  .object({ length: z.number().int().positive(), at: z.array(z.number().int()), values: z.array(z.number()) })
  .strict();
const StoredVector = z.union([z.array(z.number()), SparseVector]);

const StoredDocument = SearchDocument.omit({ vector: true }).extend({ vector: StoredVector.optional() });
const StoredChange = z.discriminatedUnion('type', [
  z.object({ type: z.literal('upsert'), document: StoredDocument }).strict(),
  z.object({ type: z.literal('remove'), id: z.string().min(1), revision: z.number().int().positive() }).strict(),
]);

const LogEntryBody = z.object({ format: z.literal(1), changes: z.array(StoredChange).min(1) }).strict();

const SnapshotBody = z
  .object({
    format: z.literal(1),
    documents: z.array(StoredDocument),
    /** Removed ids with the revision they were removed at: a late upsert of an older revision stays out. */
    removed: z.array(z.tuple([z.string(), z.number().int().positive()])),
  })
  .strict();

export interface IndexSnapshot {
  readonly documents: readonly SearchDocument[];
  readonly removed: readonly (readonly [string, number])[];
}

const storedVector = (vector: readonly number[]): z.infer<typeof StoredVector> => {
  const at: number[] = [];
  const values: number[] = [];
  vector.forEach((value, index) => {
    if (value !== 0) {
      at.push(index);
      values.push(value);
    }
  });
  return at.length * 2 < vector.length ? { length: vector.length, at, values } : [...vector];
};

const vectorOf = (stored: z.infer<typeof StoredVector>): number[] => {
  if (Array.isArray(stored)) return stored;
  const vector = new Array<number>(stored.length).fill(0);
  stored.at.forEach((index, position) => {
    vector[index] = stored.values[position] ?? 0;
  });
  return vector;
};

const storedDocument = (document: SearchDocument): z.infer<typeof StoredDocument> => {
  const { vector, ...rest } = document;
  return vector ? { ...rest, vector: storedVector(vector) } : rest;
};

const documentOf = (stored: z.infer<typeof StoredDocument>): SearchDocument => {
  const { vector, ...rest } = stored;
  return vector ? { ...rest, vector: vectorOf(vector) } : rest;
};

const pack = (value: unknown): Uint8Array => deflateRawSync(Buffer.from(JSON.stringify(value), 'utf8'));
const unpack = (body: Uint8Array): unknown => JSON.parse(inflateRawSync(body).toString('utf8'));

export const encodeChanges = (changes: readonly IndexChange[]): Uint8Array =>
  pack({
    format: 1,
    changes: changes.map((change) =>
      change.type === 'upsert' ? { type: 'upsert', document: storedDocument(change.document) } : change,
    ),
  });

export const decodeChanges = (body: Uint8Array): IndexChange[] =>
  LogEntryBody.parse(unpack(body)).changes.map((change) =>
    IndexChange.parse(change.type === 'upsert' ? { type: 'upsert', document: documentOf(change.document) } : change),
  );

export const encodeSnapshot = (snapshot: IndexSnapshot): Uint8Array =>
  pack({ format: 1, documents: snapshot.documents.map(storedDocument), removed: snapshot.removed });

export const decodeSnapshot = (body: Uint8Array): IndexSnapshot => {
  const parsed = SnapshotBody.parse(unpack(body));
  return { documents: parsed.documents.map(documentOf), removed: parsed.removed };
};
