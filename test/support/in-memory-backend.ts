import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { LocalEventBus } from '../../lambdas/adapters/events/local-event-bus.ts';
import { InMemoryAuditTrail } from '../../lambdas/adapters/memory/in-memory-audit-trail.ts';
import { InMemoryClientQuotaLedger } from '../../lambdas/adapters/memory/in-memory-client-quota-ledger.ts';
import { InMemoryDeadLetterQueue } from '../../lambdas/adapters/memory/in-memory-dead-letter-queue.ts';
import { InMemoryIdempotencyStore } from '../../lambdas/adapters/memory/in-memory-idempotency-store.ts';
import { InMemoryRecordStore } from '../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemorySearchIndexStore } from '../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import { InMemoryWorkflowRunStore } from '../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../../lambdas/adapters/observability/json-lines-log.ts';
import { LocalWorkflowRunner } from '../../lambdas/adapters/workflows/local-workflow-runner.ts';
import { CAPABILITIES } from '../../lambdas/app/capabilities.ts';
import { DEFAULT_CONFIG, RECORD_KINDS, WORKFLOWS } from '../../lambdas/app/service-tables.ts';
import { auditModule } from '../../lambdas/capabilities/audit/audit.module.ts';
import { guardrailsModule } from '../../lambdas/capabilities/guardrails/guardrails.module.ts';
import { learningModule } from '../../lambdas/capabilities/learning/learning.module.ts';
import { notesModule } from '../../lambdas/capabilities/notes/notes.module.ts';
import { retrievalModule } from '../../lambdas/capabilities/retrieval/retrieval.module.ts';
import type { AnyCapabilityModule } from '../../lambdas/composition/capability-module.ts';
import { type ComposedService, composeService, type ServicePorts } from '../../lambdas/composition/compose-service.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { createUlidGenerator } from '../../lambdas/kernel/time/ids.ts';

/** Every port on an in-memory fake; a test replaces the ones it wants real. */
export const inMemoryPorts = (clock = new ManualClock('2026-06-01T00:00:00.000Z')) => {
  const records = new InMemoryRecordStore({ clock });
  const metrics = new InMemoryMetrics();
  const auditTrail = new InMemoryAuditTrail();
  const workflowRuns = new InMemoryWorkflowRunStore();
  const deadLetters = new InMemoryDeadLetterQueue();
  const local: { bus?: LocalEventBus; runner?: LocalWorkflowRunner } = {};
  const ports: ServicePorts = {
    config: new StaticConfigProvider(DEFAULT_CONFIG),
    metrics,
    log: jsonLinesLog(),
    clock,
    ids: createUlidGenerator(),
    kinds: RECORD_KINDS,
    revisions: records,
    heads: records,
    outbox: records,
    directory: records,
    maintenance: records,
    idempotency: new InMemoryIdempotencyStore({ clock }),
    auditTrail,
    workflowRuns,
    searchIndexStore: new InMemorySearchIndexStore(),
    publisher: (consumers) => {
      local.bus = new LocalEventBus({ consumers, deadLetters, metrics });
      return local.bus;
    },
    workflowStarter: (executor) => {
      local.runner = new LocalWorkflowRunner({ executor, sleep: async () => undefined });
      return local.runner;
    },
    workflowNames: WORKFLOWS.map((workflow) => workflow.name),
    clientQuota: new InMemoryClientQuotaLedger(),
  };
  return { ports, clock, records, metrics, auditTrail, workflowRuns, deadLetters, local };
};

/** The services of the whole service by the names tests call them, and the kernel's own machinery. */
export const backendOf = (service: ComposedService) => {
  const { notes } = service.services(notesModule);
  const { sessionEvents, beliefs, appliedMemory } = service.services(learningModule);
  const { guardrails } = service.services(guardrailsModule);
  const { audit } = service.services(auditModule);
  return {
    config: service.kernel.config,
    metrics: service.kernel.metrics,
    notes,
    sessionEvents,
    beliefs,
    appliedMemory,
    guardrails,
    audit,
    search: service.services(retrievalModule).search,
    workflows: service.kernel.workflows,
    system: service.system,
    handlers: service.handlers,
    http: service.http,
  };
};
export type Backend = ReturnType<typeof backendOf>;

/** The whole service composed on the given ports (every capability unless a test names its own modules). */
export const assembleBackend = (ports: ServicePorts, modules: readonly AnyCapabilityModule[] = CAPABILITIES): Backend =>
  backendOf(composeService(ports, modules));

/** The whole service on in-memory fakes and a clock the test moves. */
export const inMemoryBackend = (
  clock = new ManualClock('2026-06-01T00:00:00.000Z'),
  modules: readonly AnyCapabilityModule[] = CAPABILITIES,
) => {
  const fakes = inMemoryPorts(clock);
  const backend = assembleBackend(fakes.ports, modules);
  return {
    ...fakes,
    backend,
    bus: fakes.local.bus as LocalEventBus,
    runner: fakes.local.runner as LocalWorkflowRunner,
  };
};
