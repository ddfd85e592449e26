import type { Page, PageRequest } from '../records/record.schema.ts';
import type { AuditEntry } from './audit-entry.schema.ts';

/** The tenant's audit trail: appended once per entry id (replays are duplicates), read oldest first. */
export interface AuditTrail {
  append(tenant: string, entry: AuditEntry): Promise<'appended' | 'duplicate'>;
  list(tenant: string, page: PageRequest & { since?: string | undefined }): Promise<Page<AuditEntry>>;
}
