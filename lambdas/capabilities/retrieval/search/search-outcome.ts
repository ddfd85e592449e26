import type { RecordRevision } from '../../../kernel/records/record.schema.ts';
import type { SearchFields, SearchProjection } from '../../../kernel/search/search-projection.ts';
import type { SearchStrategy } from '../search.schema.ts';
import type { VerifiedEvidence } from './rank-candidates.ts';

/* What a search answers, apart from how it is found: read by the service, context assembly and the handlers. */

export interface Limitation {
  readonly code: string;
  readonly message: string;
}

/** A hit after verification: the canonical head it was checked against, and how it ranked. */
export interface VerifiedHit {
  readonly head: RecordRevision;
  readonly fields: SearchFields;
  readonly projection: SearchProjection;
  readonly score: number;
  readonly features: Readonly<Record<string, number>>;
  readonly graph?: { readonly hops: number; readonly via: readonly { type: string; value: string }[] } | undefined;
  /**
   * What the legs said of the current revision, kept to rank the verified hits among themselves: raw BM25 only when
   * the index holds this very revision, the cosine and vector of the current text.
   */
  readonly evidence: VerifiedEvidence;
}

export interface SearchOutcome {
  readonly hits: readonly VerifiedHit[];
  readonly strategy: SearchStrategy;
  readonly limitations: readonly Limitation[];
}
