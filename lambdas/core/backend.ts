import { AuditConsumer } from './audit/audit.consumer.ts';
import { AuditService } from './audit/audit-service.ts';
import type { AuditTrail } from './audit/audit-trail.port.ts';
import type { ConfigProvider } from './config/config-provider.port.ts';
import { settingsForAgent } from './config/memory-hub-config.ts';
import type { EventConsumer } from './events/event-consumer.port.ts';
import type { EventPublisher } from './events/event-publisher.port.ts';
import { HeadProjectionConsumer } from './events/head-projection.consumer.ts';
import { OutboxRelay } from './events/outbox-relay.ts';
import { Reconciler } from './events/reconciler.ts';
import { AppliedMemoryService } from './guardrails/applied-memory-service.ts';
import { GUARDRAIL_KEY_PATTERN, Guardrail } from './guardrails/guardrail.schema.ts';
import { GuardrailsService } from './guardrails/guardrails-service.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.port.ts';
import { BeliefsService } from './learning/beliefs-service.ts';
import { SessionEventInput } from './learning/session-event.schema.ts';
import { SessionEventsService } from './learning/session-events-service.ts';
import { NoteContent } from './notes/note.schema.ts';
import { NotesService } from './notes/notes-service.ts';
import type { Metrics } from './observability/metrics.port.ts';
import type { NamespaceDirectory } from './records/namespace-directory.port.ts';
import { RecordService } from './records/record-service.ts';
import type { RecordStore } from './records/record-store.port.ts';
import type { Clock } from './time/clock.ts';
import type { IdGenerator } from './time/ids.ts';
import { beliefSynthesis } from './workflows/belief-synthesis.workflow.ts';
import { retentionSweep } from './workflows/retention-sweep.workflow.ts';
import { WORKFLOWS } from './workflows/workflow-catalogue.ts';
import type { WorkflowRunStore } from './workflows/workflow-run.schema.ts';
import { WorkflowService, type WorkflowStarter } from './workflows/workflow-service.ts';
import { WorkflowStepExecutor } from './workflows/workflow-step-executor.ts';

/** Everything a handler calls into; the same shape whether AWS or local adapters were wired. */
export interface Backend {
  /** Read settings with `config.current()` at the time of use, so a hot-reloaded value takes effect. */
  readonly config: ConfigProvider;
  readonly metrics: Metrics;
  readonly notes: NotesService;
  readonly sessionEvents: SessionEventsService;
  readonly beliefs: BeliefsService;
  readonly guardrails: GuardrailsService;
  readonly appliedMemory: AppliedMemoryService;
  readonly audit: AuditService;
  readonly workflows: WorkflowService;
  /** The service's own machinery, driven by streams, schedules and the bus rather than by callers. */
  readonly system: {
    readonly relay: OutboxRelay;
    readonly consumers: { readonly headProjection: EventConsumer; readonly audit: EventConsumer };
    readonly reconciler: Reconciler;
    readonly workflowSteps: WorkflowStepExecutor;
  };
}

/** The ports one backend is made of; `createAwsBackend` and `createLocalBackend` differ only in these. */
export interface BackendPorts {
  readonly config: ConfigProvider;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly records: RecordStore;
  readonly directory: NamespaceDirectory;
  readonly idempotency: IdempotencyStore;
  readonly auditTrail: AuditTrail;
  readonly workflowRuns: WorkflowRunStore;
  /** The bus; locally it delivers to the consumers assembled here, hence a factory. */
  readonly publisher: (consumers: readonly EventConsumer[]) => EventPublisher;
  /** Step Functions in AWS; locally a runner of the executor assembled here, hence a factory. */
  readonly workflowStarter: (executor: WorkflowStepExecutor) => WorkflowStarter;
}

/** A hundred years: guardrails do not expire, but every record carries an expiry. */
const GUARDRAIL_HORIZON_DAYS = 36_500;

export const assembleBackend = (ports: BackendPorts): Backend => {
  const settings = () => ports.config.current();
  const learning = (agent: string | undefined) => settingsForAgent(settings(), agent).learning;
  const recordDependencies = {
    store: ports.records,
    idempotency: ports.idempotency,
    clock: ports.clock,
    ids: ports.ids,
    idempotencyKeyHours: () => settings().retention.idempotencyKeyHours,
  };
  const consumers = {
    headProjection: new HeadProjectionConsumer({ store: ports.records, directory: ports.directory }),
    audit: new AuditConsumer({ trail: ports.auditTrail }),
  };
  const relay = new OutboxRelay({
    outbox: ports.records,
    publisher: ports.publisher([consumers.headProjection, consumers.audit]),
    clock: ports.clock,
    metrics: ports.metrics,
  });
  const workflowSteps = new WorkflowStepExecutor({
    workflows: [
      retentionSweep({
        store: ports.records,
        directory: ports.directory,
        clock: ports.clock,
        ids: ports.ids,
        purgeAfterDays: () => settings().housekeeping.purgeAfterDays,
      }),
      beliefSynthesis({
        store: ports.records,
        directory: ports.directory,
        clock: ports.clock,
        ids: ports.ids,
        learning,
      }),
    ],
    runs: ports.workflowRuns,
    clock: ports.clock,
  });
  const starter = ports.workflowStarter(workflowSteps);
  const beliefs = new BeliefsService({ store: ports.records, clock: ports.clock, ids: ports.ids, learning });
  const guardrails = new GuardrailsService(
    new RecordService(recordDependencies, {
      kind: 'guardrail',
      content: Guardrail,
      // Guardrails are policy, not memory: they stay until an admin removes them.
      horizonDays: () => GUARDRAIL_HORIZON_DAYS,
      idPattern: GUARDRAIL_KEY_PATTERN,
    }),
  );
  return {
    config: ports.config,
    metrics: ports.metrics,
    notes: new NotesService(
      new RecordService(recordDependencies, {
        kind: 'note',
        content: NoteContent,
        horizonDays: ({ agent }) => settingsForAgent(settings(), agent).retention.noteHorizonDays,
      }),
    ),
    sessionEvents: new SessionEventsService({
      events: new RecordService(recordDependencies, {
        kind: 'session-events',
        content: SessionEventInput,
        horizonDays: (_, event) => learning(event.agent).sessionEventTtlDays,
        // Short-term memory may hold what the principal said, identifiers included: encrypted, expiring and
        // never shared. The screen guards what crosses into long-term memory (see SessionEventsService).
        screen: () => {},
      }),
      beliefs,
      audit: ports.auditTrail,
      clock: ports.clock,
      ids: ports.ids,
    }),
    beliefs,
    guardrails,
    appliedMemory: new AppliedMemoryService({ beliefs, guardrails, audit: ports.auditTrail, clock: ports.clock }),
    audit: new AuditService({ trail: ports.auditTrail }),
    workflows: new WorkflowService({
      starter,
      runs: ports.workflowRuns,
      ids: ports.ids,
      clock: ports.clock,
      workflows: WORKFLOWS.map((workflow) => workflow.name),
    }),
    system: {
      relay,
      consumers,
      reconciler: new Reconciler({ store: ports.records, directory: ports.directory, relay }),
      workflowSteps,
    },
  };
};
