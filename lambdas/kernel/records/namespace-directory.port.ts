import type { Page, PageRequest } from './record.schema.ts';

export interface NamespaceEntry {
  readonly key: string;
  readonly hash: string;
  readonly tenant: string;
}

/**
 * Every namespace that ever held a record, recorded by the store on first write: how consumers resolve
 * an event's namespace hash, and how maintenance jobs (reconciler, retention sweep) find all namespaces
 * with queries rather than table scans.
 */
export interface NamespaceDirectory {
  resolve(tenant: string, hash: string): Promise<NamespaceEntry | undefined>;
  list(page: PageRequest & { tenant?: string | undefined }): Promise<Page<NamespaceEntry>>;
}
