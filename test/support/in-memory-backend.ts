import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { LocalEventBus } from '../../lambdas/adapters/events/local-event-bus.ts';
import { InMemoryAuditTrail } from '../../lambdas/adapters/memory/in-memory-audit-trail.ts';
import { InMemoryDeadLetterQueue } from '../../lambdas/adapters/memory/in-memory-dead-letter-queue.ts';
import { InMemoryIdempotencyStore } from '../../lambdas/adapters/memory/in-memory-idempotency-store.ts';
import { InMemoryRecordStore } from '../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemoryWorkflowRunStore } from '../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { LocalWorkflowRunner } from '../../lambdas/adapters/workflows/local-workflow-runner.ts';
import { assembleBackend, type Backend, type BackendPorts } from '../../lambdas/core/backend.ts';
import { ManualClock } from '../../lambdas/core/time/clock.ts';
import { createUlidGenerator } from '../../lambdas/core/time/ids.ts';

/** Every port on an in-memory fake; a test replaces the ones it wants real. */
export const inMemoryPorts = (clock = new ManualClock('2026-06-01T00:00:00.000Z')) => {
  const records = new InMemoryRecordStore({ clock });
  const metrics = new InMemoryMetrics();
  const auditTrail = new InMemoryAuditTrail();
  const workflowRuns = new InMemoryWorkflowRunStore();
  const deadLetters = new InMemoryDeadLetterQueue();
  const local: { bus?: LocalEventBus; runner?: LocalWorkflowRunner } = {};
  const ports: BackendPorts = {
    config: new StaticConfigProvider(),
    metrics,
    clock,
    ids: createUlidGenerator(),
    records,
    directory: records,
    idempotency: new InMemoryIdempotencyStore({ clock }),
    auditTrail,
    workflowRuns,
    publisher: (consumers) => {
      local.bus = new LocalEventBus({ consumers, deadLetters, metrics });
      return local.bus;
    },
    workflowStarter: (executor) => {
      local.runner = new LocalWorkflowRunner({ executor, sleep: async () => undefined });
      return local.runner;
    },
  };
  return { ports, clock, records, metrics, auditTrail, workflowRuns, deadLetters, local };
};

/** The whole core on in-memory fakes and a clock the test moves. */
export const inMemoryBackend = (clock = new ManualClock('2026-06-01T00:00:00.000Z')) => {
  const fakes = inMemoryPorts(clock);
  const backend: Backend = assembleBackend(fakes.ports);
  return {
    ...fakes,
    backend,
    bus: fakes.local.bus as LocalEventBus,
    runner: fakes.local.runner as LocalWorkflowRunner,
  };
};
