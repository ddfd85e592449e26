import type { RecordRevision } from '../../../kernel/records/record.schema.ts';
import type { Embedder } from '../../../kernel/search/embedder.port.ts';
import type { IndexChange, SearchDocument } from '../../../kernel/search/search-document.ts';
import type { SearchFields, SearchProjection } from '../../../kernel/search/search-projection.ts';
import { entityMentions } from './entity-mentions.ts';

/** The edge type of entity mentions found in a document's text, and of a document's tags. */
export const ENTITY_EDGE = 'entity';
export const TAG_EDGE = 'tag';

/** Every typed edge of a record's searchable fields: its tags, the kind's own edges, and the entities it mentions. */
export const edgesOfFields = (fields: SearchFields): Record<string, string[]> => ({
  ...Object.fromEntries(Object.entries(fields.edges ?? {}).map(([type, values]) => [type, [...values]])),
  [TAG_EDGE]: [...(fields.tags ?? [])],
  [ENTITY_EDGE]: entityMentions(fields.text),
});

/** Tags are a document field of their own; the index walks them as the `tag` edge type. */
const edgesWithoutTags = (fields: SearchFields): Record<string, string[]> => {
  const { [TAG_EDGE]: _tags, ...edges } = edgesOfFields(fields);
  return edges;
};

/**
 * What the index is told of a record, from its canonical head: the document of a live, searchable revision, or
 * a removal as of `endedAt` (the revision that ended the record, or the last one known) when there is none.
 */
export const indexChangesOf = async (
  records: readonly { readonly id: string; readonly head: RecordRevision | undefined; readonly endedAt: number }[],
  projection: (kind: string) => SearchProjection | undefined,
  embedder: Embedder,
): Promise<IndexChange[]> => {
  const documents = records.map(({ id, head, endedAt }) => {
    // Only a live revision is searchable, whatever its projection would make of a tombstone.
    const fields = head?.status === 'active' ? projection(head.namespace.kind.name)?.fields(head) : undefined;
    return { id, head, endedAt, fields };
  });
  const texts = documents.flatMap(({ fields }) => (fields ? [fields.text] : []));
  const vectors = texts.length > 0 ? await embedder.embed(texts) : [];
  let next = 0;
  return documents.map(({ id, head, endedAt, fields }): IndexChange => {
    if (!head || !fields) return { type: 'remove', id, revision: head?.revision ?? endedAt };
    const vector = vectors[next++];
    const document: SearchDocument = {
      id: head.id,
      kind: head.namespace.kind.name,
      revision: head.revision,
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      expiresAt: head.expiresAt,
      text: fields.text,
      states: [...(fields.states ?? [])],
      tags: [...(fields.tags ?? [])],
      edges: edgesWithoutTags(fields),
      ...(vector && { vector: [...vector], model: embedder.model }),
    };
    return { type: 'upsert', document };
  });
};
