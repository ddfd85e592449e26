import type { RecordKind } from '../namespaces/record-kind.ts';
import type { RecordRevision } from '../records/record.schema.ts';

/** What search reads of one revision's content. */
export interface SearchFields {
  /** The text keyword and semantic search read (the kind joins its fields as it sees fit). */
  readonly text: string;
  readonly tags?: readonly string[] | undefined;
  /** Facets a `status` filter can select, e.g. a belief's `applied`. */
  readonly states?: readonly string[] | undefined;
  /** Typed relations for the graph strategy, by edge type (`rule` keys, `lineage` ids, …). */
  readonly edges?: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * How one kind's records are searched and shown, contributed by the capability that owns the kind (built with
 * its services, since showing a record may need them): retrieval indexes and presents every kind through these
 * and knows none by name.
 */
export interface SearchProjection {
  readonly kind: RecordKind;
  /** The searchable fields of a live revision; undefined when there is nothing in it to search. */
  fields(revision: RecordRevision): SearchFields | undefined;
  /** The record as its own GET answers it, for the caller whose scope read it. */
  present(revision: RecordRevision): Promise<unknown> | unknown;
  /**
   * Set when a record's states change with time alone, no revision written (a belief matures, decays, expires):
   * an index's copy of them is then not asked to filter, and the `status` filter is applied on verification only.
   */
  readonly statesChangeOverTime?: true;
}

/**
 * Rebuilds a projection of one namespace from its canonical state, for the reconciler: the live heads, and the
 * records that are gone with the revision that ended them.
 */
export interface NamespaceRebuilder {
  readonly name: string;
  handles(kind: RecordKind): boolean;
  /** `read` walks the namespace's heads (repairing their projection as it goes); the rebuilder decides when. */
  rebuild(
    namespace: RecordRevision['namespace'],
    read: () => Promise<{
      readonly live: readonly RecordRevision[];
      readonly ended: readonly (readonly [string, number])[];
    }>,
  ): Promise<void>;
}
