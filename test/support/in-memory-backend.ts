import { InMemoryIdempotencyStore } from '../../lambdas/adapters/memory/in-memory-idempotency-store.ts';
import { InMemoryRecordStore } from '../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { assembleBackend, type Backend } from '../../lambdas/core/backend.ts';
import { DEFAULT_CONFIG } from '../../lambdas/core/config/memory-hub-config.ts';
import { ManualClock } from '../../lambdas/core/time/clock.ts';
import { createUlidGenerator } from '../../lambdas/core/time/ids.ts';

/** The whole core on in-memory fakes and a clock the test moves. */
export const inMemoryBackend = (clock = new ManualClock('2026-06-01T00:00:00.000Z')) => {
  const records = new InMemoryRecordStore({ clock });
  const backend: Backend = assembleBackend({
    config: DEFAULT_CONFIG,
    metrics: new InMemoryMetrics(),
    clock,
    ids: createUlidGenerator(),
    records,
    idempotency: new InMemoryIdempotencyStore({ clock }),
  });
  return { backend, clock, records };
};
