import type { RecordEvent } from '../events/record-event.schema.ts';
import type { Namespace } from '../namespaces/namespace.ts';
import type { Page, PageRequest, RecordRevision } from './record.schema.ts';

/** A committed revision whose event has not been published yet; `marker` is opaque to everyone but the store. */
export interface OutboxEntry {
  readonly event: RecordEvent;
  readonly marker: string;
}

export interface AppendOptions {
  /**
   * The write is sent only once this has resolved; the content is prepared (encrypted) meanwhile. When it
   * rejects, nothing is written and `append` rejects with its reason. For a write that refers to another
   * one still in flight (a belief citing the event that taught it).
   */
  readonly after?: Promise<unknown> | undefined;
}

/**
 * Append-only storage of record revisions. Implementations use single-item conditional writes, queries and
 * batch reads only, re-verify that everything they return lies in the namespace asked for (refusing and
 * counting anything that does not), and leave out whatever has expired by their clock.
 *
 * Records of a journal kind (`RecordKind.journal`) have revision 1 only: it is their head, no head projection is
 * kept for them (`projectHead` changes nothing), and appending any other revision is a programming error.
 */
export interface RecordStore {
  /**
   * The commit point and the concurrency token at once: creates `revision` if and only if that revision
   * number does not exist yet for the record (else RevisionConflictError), marked for the outbox with
   * `event`; then moves the head projection forward (journal kinds: revision 1 only, no projection).
   */
  append(revision: RecordRevision, event: RecordEvent, options?: AppendOptions): Promise<void>;

  /** The greatest revision of the record (tombstones included), or undefined when absent or expired. */
  getHead(namespace: Namespace, id: string): Promise<RecordRevision | undefined>;

  getRevision(namespace: Namespace, id: string, revision: number): Promise<RecordRevision | undefined>;

  /** Live (not deleted, not expired) heads in id order, from the head projection. */
  listHeads(namespace: Namespace, page: PageRequest): Promise<Page<RecordRevision>>;

  /** Unexpired revisions of one record, oldest first. */
  listRevisions(namespace: Namespace, id: string, page: PageRequest): Promise<Page<RecordRevision>>;

  /** Heads of any status whose expiry is at or before `expiredBefore`: what the retention sweep acts on. */
  listExpiredHeads(namespace: Namespace, page: PageRequest & { expiredBefore: string }): Promise<Page<RecordRevision>>;

  /** Ids of every record with at least one revision in the namespace (for the reconciler). */
  listRecordIds(namespace: Namespace, page: PageRequest): Promise<Page<string>>;

  /** Removes every stored item of one record (revisions and head); returns how many were removed. */
  purge(namespace: Namespace, id: string): Promise<number>;

  /** The revision the head projection currently holds (without reading or decrypting content), if any. */
  projectedRevision(namespace: Namespace, id: string): Promise<number | undefined>;

  /** Moves the head projection to `revision` if it is newer than the projected one; idempotent. */
  projectHead(revision: RecordRevision): Promise<boolean>;

  /** Committed revisions still marked for publication, oldest first. */
  pendingEvents(limit: number): Promise<readonly OutboxEntry[]>;

  /** Clears one outbox marker once its event is published; clearing twice is harmless. */
  clearOutboxMarker(marker: string): Promise<void>;
}

/** A journal record has revision 1 and no other: anything else is a caller's mistake, not a conflict. */
export const assertJournalWrittenOnce = (revision: RecordRevision, journal: boolean): void => {
  if (journal && revision.revision !== 1)
    throw new TypeError(
      `Records of the journal kind ${revision.namespace.kind.name} are written once (revision 1 only)`,
    );
};
