import type { Namespace } from '../namespaces/namespace.ts';
import type { Page, PageRequest, RecordRevision } from './record.schema.ts';

/** What the service's own jobs walk and remove: the retention sweep and the reconciler. */
export interface RecordMaintenance {
  /** Heads of any status whose expiry is at or before `expiredBefore`: what the retention sweep acts on. */
  listExpiredHeads(namespace: Namespace, page: PageRequest & { expiredBefore: string }): Promise<Page<RecordRevision>>;

  /** Ids of every record with at least one revision in the namespace (for the reconciler). */
  listRecordIds(namespace: Namespace, page: PageRequest): Promise<Page<string>>;

  /** Removes every stored item of one record (revisions and head); returns how many were removed. */
  purge(namespace: Namespace, id: string): Promise<number>;
}
