import {
  assertLeaseRequest,
  type ClientQuotaLedger,
  type QuotaLeaseRequest,
} from '../../kernel/quota/client-quota-ledger.port.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import type { MemoryTableClient } from './memory-table-client.ts';

/**
 * Where the quota items live in the memory table: a partition per app client (`client-quota#{client_id}`), an item
 * per window (`W#{window start, epoch ms}`). No namespace key starts like this (they start with `t/`), and the IAM
 * grant of the read-only functions names exactly this prefix and these attributes (`grantClientQuotaLeases` in
 * lib/constructs/memory-table.ts; a test compares the two).
 */
export const CLIENT_QUOTA_ITEMS = {
  partitionKeyPrefix: 'client-quota#',
  sortKeyPrefix: 'W#',
  /** Every attribute a lease touches. */
  attributes: ['pk', 'sk', 'leased', 'ttl'],
} as const;

/** A window's item outlives the window by this much, then DynamoDB's TTL removes it (late, and free of charge). */
const KEPT_AFTER_WINDOW_MS = 60_000;

/** Attempts at a lease that races others for a window's last tokens, before this environment lets the window go. */
const LEASE_ATTEMPTS = 3;

/**
 * The quota ledger on the memory table. A lease is one conditional UpdateItem that adds the tokens to the
 * window's count on the condition that the count stays within the limit, so the limit holds across every
 * execution environment. Refused, it reads the count (strongly consistent) and asks for exactly what remains:
 * the partial last lease. That costs one write unit per lease, and a refused write and a read once per
 * environment when a window runs out.
 */
export class DynamoDbClientQuotaLedger implements ClientQuotaLedger {
  readonly #table: MemoryTableClient;

  constructor(options: { table: MemoryTableClient }) {
    this.#table = options.table;
  }

  async lease(request: QuotaLeaseRequest): Promise<number> {
    assertLeaseRequest(request);
    const key = clientQuotaKey(request.client, request.window.start);
    let wanted = Math.min(request.tokens, request.limit);
    for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt += 1) {
      const leased = await this.#table.update(
        key,
        'SET #ttl = if_not_exists(#ttl, :ttl) ADD leased :tokens',
        'attribute_not_exists(leased) OR leased <= :room',
        {
          values: {
            ':tokens': wanted,
            ':room': request.limit - wanted,
            ':ttl': ttlEpochSeconds(request.window.end + KEPT_AFTER_WINDOW_MS),
          },
          names: { '#ttl': 'ttl' },
        },
      );
      if (leased) return wanted;
      const item = await this.#table.get(key, { projection: 'leased' });
      const remaining = request.limit - (typeof item?.leased === 'number' ? item.leased : 0);
      if (remaining <= 0) return 0;
      wanted = Math.min(wanted, remaining);
    }
    return 0;
  }
}

export const clientQuotaKey = (client: string, windowStart: number) => ({
  pk: `${CLIENT_QUOTA_ITEMS.partitionKeyPrefix}${client}`,
  sk: `${CLIENT_QUOTA_ITEMS.sortKeyPrefix}${windowStart}`,
});
