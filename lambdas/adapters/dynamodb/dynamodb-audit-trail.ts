import { AuditEntry } from '../../kernel/audit/audit-entry.schema.ts';
import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import { type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

const DAY_MS = 86_400_000;

/**
 * The audit trail as items of the memory table, one partition per tenant (`audit#{tenant}`), sorted by
 * time. An entry is a conditional put keyed by its time and id, so a replayed event appends nothing.
 * Entries hold identifiers and decisions only, never content; they expire after the audit horizon.
 */
export class DynamoDbAuditTrail implements AuditTrail {
  readonly #table: MemoryTableClient;
  readonly #clock: Clock;
  readonly #retentionDays: () => number;

  constructor(options: { table: MemoryTableClient; clock: Clock; retentionDays: () => number }) {
    this.#table = options.table;
    this.#clock = options.clock;
    this.#retentionDays = options.retentionDays;
  }

  async append(tenant: string, entry: AuditEntry): Promise<'appended' | 'duplicate'> {
    const expires = this.#clock.now().getTime() + this.#retentionDays() * DAY_MS;
    const appended = await this.#table.put(
      {
        pk: `audit#${tenant}`,
        sk: `A#${entry.occurredAt}#${entry.id}`,
        entry: JSON.stringify(AuditEntry.parse(entry)),
        ttl: ttlEpochSeconds(expires),
      },
      { expression: 'attribute_not_exists(pk)' },
    );
    return appended ? 'appended' : 'duplicate';
  }

  async list(tenant: string, page: PageRequest & { since?: string | undefined }): Promise<Page<AuditEntry>> {
    const from = `A#${page.since ?? ''}`;
    // The position must lie in the range the query reads (DynamoDB refuses a start key outside it).
    const position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith('A#') && p >= from) : undefined;
    const { items, lastSortKey } = await this.#table.querySortKeys({
      pk: `audit#${tenant}`,
      from,
      after: position,
      limit: page.limit,
    });
    return {
      items: items.map((item) => parseJsonAttribute(item.entry, AuditEntry)),
      nextCursor: lastSortKey === undefined ? undefined : encodeCursor(lastSortKey),
    };
  }
}
