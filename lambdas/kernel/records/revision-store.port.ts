import type { RecordEvent } from '../events/record-event.schema.ts';
import type { Namespace } from '../namespaces/namespace.ts';
import type { Page, PageRequest, RecordRevision } from './record.schema.ts';

export interface AppendOptions {
  /**
   * The write is sent only once this has resolved; the content is prepared (encrypted) meanwhile. When it
   * rejects, nothing is written and `append` rejects with its reason. For a write that refers to another
   * one still in flight (a belief citing the event that taught it).
   */
  readonly after?: Promise<unknown> | undefined;
}

/**
 * The canonical, append-only revisions of records. Implementations use single-item conditional writes and
 * queries only, re-verify that everything they return lies in the namespace asked for (refusing and counting
 * anything that does not), and leave out whatever has expired by their clock. Only the revision writer
 * appends; everything else reads.
 *
 * Records of a journal kind (`RecordKind.journal`) have revision 1 only: it is their head, and appending any
 * other revision is a programming error.
 */
export interface RevisionStore {
  /**
   * The commit point and the concurrency token at once: creates `revision` if and only if that revision
   * number does not exist yet for the record (else RevisionConflictError), marked for the outbox with
   * `event`, its namespace entered in the directory first; then moves the head projection forward (not for
   * journal kinds, whose one revision is their head).
   */
  append(revision: RecordRevision, event: RecordEvent, options?: AppendOptions): Promise<void>;

  /** The greatest revision of the record (tombstones included), or undefined when absent or expired. */
  getHead(namespace: Namespace, id: string): Promise<RecordRevision | undefined>;

  getRevision(namespace: Namespace, id: string, revision: number): Promise<RecordRevision | undefined>;

  /** Unexpired revisions of one record, oldest first. */
  listRevisions(namespace: Namespace, id: string, page: PageRequest): Promise<Page<RecordRevision>>;
}

/** A journal record has revision 1 and no other: anything else is a caller's mistake, not a conflict. */
export const assertJournalWrittenOnce = (revision: RecordRevision): void => {
  if (revision.namespace.kind.journal && revision.revision !== 1)
    throw new TypeError(
      `Records of the journal kind ${revision.namespace.kind.name} are written once (revision 1 only)`,
    );
};
