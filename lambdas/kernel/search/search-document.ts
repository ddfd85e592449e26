import * as z from 'zod';

/**
 * What a search index holds of one record's current revision: what ranking, filtering and the graph strategy
 * read. It is a derived copy of the record's content, so every index keeps it sealed with the tenant's key, and
 * nothing in it is disclosed as it is: a hit is re-read from the canonical record before it leaves the service.
 */
export const SearchDocument = z
  .object({
    id: z.string().min(1),
    kind: z.string().min(1),
    revision: z.number().int().positive(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    /** What keyword and semantic search read: the kind's searchable text, as its projection joins it. */
    text: z.string(),
    /** Facets the kind declares (a belief's applied state, say); `status` filters match against these. */
    states: z.array(z.string()),
    tags: z.array(z.string()),
    /** Typed relations the graph strategy walks, by edge type: `rule` keys, `entity` mentions, `lineage` ids. */
    edges: z.record(z.string(), z.array(z.string())),
    /** The embedder's vector for `text`, `model` naming the embedder that made it. */
    vector: z.array(z.number()).optional(),
    model: z.string().optional(),
  })
  .strict();
export type SearchDocument = z.infer<typeof SearchDocument>;

/**
 * A change to one namespace's index, revision-aware: an upsert of revision n, or a removal as of revision n,
 * changes nothing once the index knows revision n or a later one — so a replayed or late event is harmless.
 */
export const IndexChange = z.discriminatedUnion('type', [
  z.object({ type: z.literal('upsert'), document: SearchDocument }).strict(),
  z.object({ type: z.literal('remove'), id: z.string().min(1), revision: z.number().int().positive() }).strict(),
]);
export type IndexChange = z.infer<typeof IndexChange>;

export const revisionOfChange = (change: IndexChange): number =>
  change.type === 'upsert' ? change.document.revision : change.revision;

export const idOfChange = (change: IndexChange): string => (change.type === 'upsert' ? change.document.id : change.id);
