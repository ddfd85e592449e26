import * as z from 'zod';
import type { Namespace } from '../namespaces/namespace.ts';

export const RecordStatus = z.enum(['active', 'deleted']);
export type RecordStatus = z.infer<typeof RecordStatus>;

const Actor = z.object({ principal: z.string(), client: z.string() }).strict();

/** Who made a record and each of its revisions, and from what; carried inside the encrypted payload. */
export const Provenance = z
  .object({
    createdBy: Actor,
    revisedBy: Actor,
    sourceEventIds: z.array(z.string()).max(50),
  })
  .strict();
export type Provenance = z.infer<typeof Provenance>;

/** What is encrypted for each revision: the kind's content (null once deleted) and its provenance. */
export const RevisionPayload = z
  .object({
    content: z.unknown(),
    provenance: Provenance,
  })
  .strict();
export type RevisionPayload = z.infer<typeof RevisionPayload>;

/**
 * One immutable revision of a long-term record. Revision n+1 is appended beside revision n; the head is
 * the greatest revision. `content` is the kind's content, validated by the kind's schema above the store.
 */
export interface RecordRevision {
  readonly id: string;
  readonly namespace: Namespace;
  readonly revision: number;
  readonly status: RecordStatus;
  readonly content: unknown;
  readonly provenance: Provenance;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string | undefined;
}

export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
  /** Listings of heads run in id order; `true` runs them backwards (ULIDs: newest first). */
  readonly descending?: boolean | undefined;
}

/**
 * The revisions a caller says its change was computed from (If-Match may name several ETags of one record):
 * the change is appended only when the record's latest revision is one of them. Empty when nothing the caller
 * named is a revision of this record, which matches nothing.
 */
export type ExpectedRevisions = readonly number[];

/** Who made a revision: the verified principal and calling client, or the service's own job. */
export type Actor = Provenance['createdBy'];
