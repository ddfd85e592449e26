import { createHash } from 'node:crypto';
import * as z from 'zod';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyStore,
} from '../../kernel/idempotency/idempotency-store.port.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import { type Metrics, noMetrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import type { MemoryTableClient } from './memory-table-client.ts';

const StoredClaim = z.object({
  pk: z.string(),
  fingerprint: z.string(),
  recordId: z.string(),
  expiresAt: z.string(),
});

/**
 * Idempotency claims as items of the memory table, in the caller's own `idempotency` namespace. A claim is
 * a conditional put: the first request with a key wins; an expired claim may be taken over.
 */
export class DynamoDbIdempotencyStore implements IdempotencyStore {
  readonly #table: MemoryTableClient;
  readonly #clock: Clock;
  readonly #metrics: Metrics;

  constructor(options: { table: MemoryTableClient; clock: Clock; metrics?: Metrics }) {
    this.#table = options.table;
    this.#clock = options.clock;
    this.#metrics = options.metrics ?? noMetrics;
  }

  async claim(namespace: Namespace, key: string, claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const itemKey = { pk: namespace.key, sk: `I#${createHash('sha256').update(key).digest('base64url')}` };
    const claimed = await this.#table.put(
      {
        ...itemKey,
        fingerprint: claim.fingerprint,
        recordId: claim.recordId,
        expiresAt: claim.expiresAt,
        ttl: ttlEpochSeconds(Date.parse(claim.expiresAt)),
      },
      {
        expression: 'attribute_not_exists(pk) OR expiresAt <= :now',
        values: { ':now': this.#clock.now().toISOString() },
      },
    );
    if (claimed) return { outcome: 'claimed' };
    const existing = StoredClaim.safeParse(await this.#table.get(itemKey));
    if (!existing.success || existing.data.pk !== namespace.key) {
      this.#metrics.count('scope.violation_refused');
      throw new Error('Idempotency claim vanished or is malformed');
    }
    const { fingerprint, recordId, expiresAt } = existing.data;
    return { outcome: 'existing', fingerprint, recordId, expiresAt };
  }
}
