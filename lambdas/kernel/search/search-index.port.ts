import type { Namespace } from '../namespaces/namespace.ts';
import type { IndexChange, SearchDocument } from './search-document.ts';

/** What every leg of a candidate query keeps: the caller's filters, applied before any limit. */
export interface SearchFilter {
  readonly kinds?: readonly string[] | undefined;
  /** Every one of these tags. */
  readonly tags?: readonly string[] | undefined;
  /** Any one of these states (a document's `states`). */
  readonly states?: readonly string[] | undefined;
  /** Last revised at or after / before (ISO instants). */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

/** What a filter reads of a record: its kind, tags, states and when it was last revised. */
export interface FilteredRecord {
  readonly kind: string;
  readonly tags?: readonly string[] | undefined;
  readonly states?: readonly string[] | undefined;
  readonly updatedAt: string;
}

/** Whether `record` passes `filter`: what an index applies to its copy, and verification to the canonical record. */
export const passesSearchFilter = (record: FilteredRecord, filter: SearchFilter): boolean =>
  (!filter.kinds || filter.kinds.includes(record.kind)) &&
  (!filter.tags || filter.tags.every((tag) => record.tags?.includes(tag))) &&
  (!filter.states || filter.states.some((state) => record.states?.includes(state))) &&
  (filter.since === undefined || record.updatedAt >= filter.since) &&
  (filter.until === undefined || record.updatedAt < filter.until);

/**
 * One namespace's candidates for a search, by up to four legs at once; the retrieval service fuses, reranks and
 * verifies them. Each leg returns at most its `limit`, best first.
 */
export interface CandidateQuery {
  /** BM25 over the documents' analysed text. */
  readonly keyword?: { readonly text: string; readonly limit: number } | undefined;
  /** Nearest by cosine to `vector`, over documents whose vectors `model` made. */
  readonly semantic?:
    | { readonly vector: readonly number[]; readonly model: string; readonly limit: number }
    | undefined;
  /** Newest first by `updatedAt`. */
  readonly recent?: { readonly limit: number } | undefined;
  /** Documents sharing at least one edge value with these, by edge type (the graph strategy's next hop). */
  readonly related?:
    | { readonly edges: Readonly<Record<string, readonly string[]>>; readonly limit: number }
    | undefined;
  readonly filter: SearchFilter;
}

/** A document as a candidate: everything but its text, with the raw score of each leg that found it. */
export interface Candidate {
  readonly document: Omit<SearchDocument, 'text'>;
  /** Raw BM25 (k1 = 1.5, b = 0.75) of the keyword leg, unnormalised. */
  readonly keyword?: number | undefined;
  /** Cosine similarity of the semantic leg, in [−1, 1]. */
  readonly semantic?: number | undefined;
  /** Rank in the recency leg, 0 = newest. */
  readonly recency?: number | undefined;
  /** Edge values shared with the `related` query, by edge type. */
  readonly shared?: Readonly<Record<string, readonly string[]>> | undefined;
}

export interface RebuiltState {
  readonly documents: readonly SearchDocument[];
  readonly removed: readonly (readonly [id: string, revision: number])[];
}

export interface CandidateSet {
  readonly candidates: readonly Candidate[];
  /** Documents the namespace's index holds. */
  readonly documents: number;
}

/**
 * A derived index of records, one per namespace, fed by the event backbone and rebuilt from canonical heads. It
 * only ever proposes: whatever it returns is re-checked against the canonical record before disclosure, so a
 * stale or corrupted index can cost recall, never leak.
 */
export interface SearchIndex {
  /** `embedded` (the default, beside the records) or `opensearch`: what `limitations` and metrics name. */
  readonly name: string;
  /** Applies changes in order, each revision-aware (see IndexChange). */
  apply(namespace: Namespace, changes: readonly IndexChange[]): Promise<void>;
  /**
   * Replaces the namespace's index with the state `read` gives from the canonical heads: the live documents, and the
   * records that are gone with the revision that ended them (so a late event cannot bring one back). The index calls
   * `read` itself, so that it can order the read against its own log: nothing applied meanwhile is lost.
   */
  rebuild(namespace: Namespace, read: () => Promise<RebuiltState>): Promise<void>;
  candidates(namespace: Namespace, query: CandidateQuery): Promise<CandidateSet>;
}

/** The index could not answer (storage down, a sealed segment that would not open): search falls back to a scan. */
export class SearchIndexUnavailableError extends Error {
  override readonly name = 'SearchIndexUnavailableError';
}
