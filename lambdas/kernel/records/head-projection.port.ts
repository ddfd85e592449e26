import type { Namespace } from '../namespaces/namespace.ts';
import type { Page, PageRequest, RecordRevision } from './record.schema.ts';

/**
 * The projection of each record's latest revision, kept beside the revisions for listing: the writer moves
 * it when it appends, and the head-projection consumer and the reconciler repair it when that write was
 * lost. It only ever moves forward, so a replay or a late event changes nothing. A journal record is its own
 * head: there is nothing to project, and listing reads its one revision.
 */
export interface HeadProjection {
  /** Live (not deleted, not expired) heads in id order, or reversed (ULIDs: newest first). */
  listHeads(namespace: Namespace, page: PageRequest): Promise<Page<RecordRevision>>;

  /** The revision the projection holds now (without reading or decrypting content), if any. */
  projectedRevision(namespace: Namespace, id: string): Promise<number | undefined>;

  /** Moves the projection to `revision` if it is newer than the projected one; false when it changed nothing. */
  projectHead(revision: RecordRevision): Promise<boolean>;

  /**
   * Moves the projection to the committed revision `revision` of `id` if it is newer, copying it as stored:
   * its content is neither read nor decrypted (the relay, which holds no content key, repairs heads this way).
   * False when it changed nothing or no such revision is stored.
   */
  projectCommitted(namespace: Namespace, id: string, revision: number): Promise<boolean>;
}
