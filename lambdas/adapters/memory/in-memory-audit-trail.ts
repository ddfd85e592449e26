import type { AuditEntry } from '../../kernel/audit/audit-entry.schema.ts';
import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';

/** Test double of the audit trail, same contract as the DynamoDB adapter. */
export class InMemoryAuditTrail implements AuditTrail {
  readonly #entries = new Map<string, Map<string, AuditEntry>>();

  async append(tenant: string, entry: AuditEntry): Promise<'appended' | 'duplicate'> {
    const entries = this.#entries.get(tenant) ?? new Map<string, AuditEntry>();
    this.#entries.set(tenant, entries);
    const key = `A#${entry.occurredAt}#${entry.id}`;
    if (entries.has(key)) return 'duplicate';
    entries.set(key, structuredClone(entry));
    return 'appended';
  }

  async list(tenant: string, page: PageRequest & { since?: string | undefined }): Promise<Page<AuditEntry>> {
    const from = `A#${page.since ?? ''}`;
    const after = page.cursor
      ? decodeCursor(page.cursor, (position) => position.startsWith('A#') && position >= from)
      : undefined;
    const keys = [...(this.#entries.get(tenant)?.keys() ?? [])]
      .filter((key) => key >= from && (after === undefined || key > after))
      .sort();
    const taken = keys.slice(0, page.limit);
    const last = taken.at(-1);
    return {
      items: taken.map((key) => this.#entries.get(tenant)?.get(key) as AuditEntry),
      nextCursor: keys.length > page.limit && last ? encodeCursor(last) : undefined,
    };
  }
}
