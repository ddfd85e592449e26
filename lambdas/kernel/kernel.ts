import type { AuditTrail } from './audit/audit-trail.port.ts';
import type { ConfigProvider } from './config/config-provider.port.ts';
import { kernelRetention } from './config/kernel-config.ts';
import type { Outbox } from './events/outbox.port.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.port.ts';
import type { RecordKinds } from './namespaces/record-kind.ts';
import type { Log } from './observability/log.port.ts';
import type { Metrics } from './observability/metrics.port.ts';
import type { HeadProjection } from './records/head-projection.port.ts';
import type { NamespaceDirectory } from './records/namespace-directory.port.ts';
import type { RecordMaintenance } from './records/record-maintenance.port.ts';
import { RecordService, type RecordServiceSpec } from './records/record-service.ts';
import type { RevisionStore } from './records/revision-store.port.ts';
import { RevisionWriter } from './records/revision-writer.ts';
import type { Embedder } from './search/embedder.port.ts';
import type { SearchIndex } from './search/search-index.port.ts';
import type { SearchIndexStore } from './search/search-index-store.port.ts';
import type { Clock } from './time/clock.ts';
import type { IdGenerator } from './time/ids.ts';
import type { WorkflowRunStore } from './workflows/workflow-run.schema.ts';
import { WorkflowService, type WorkflowStarter } from './workflows/workflow-service.ts';

/** The ports the kernel is made of; the AWS, local and in-memory compositions differ only in these. */
export interface KernelPorts {
  /** Read settings through their section at the time of use, so a hot-reloaded value takes effect. */
  readonly config: ConfigProvider;
  readonly metrics: Metrics;
  readonly log: Log;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Every record kind of the deployment (the service's own jobs meet all of them). */
  readonly kinds: RecordKinds;
  /** The canonical revisions; only the revision writer appends. */
  readonly revisions: RevisionStore;
  /** Each record's latest revision, for listings. */
  readonly heads: HeadProjection;
  /** Events of committed revisions not yet published. */
  readonly outbox: Outbox;
  /** Every namespace that holds records: how the service's own jobs find them. */
  readonly directory: NamespaceDirectory;
  /** What the retention sweep and the reconciler walk and remove. */
  readonly maintenance: RecordMaintenance;
  readonly idempotency: IdempotencyStore;
  readonly auditTrail: AuditTrail;
  readonly workflowRuns: WorkflowRunStore;
  /** Where the embedded search index of each namespace is kept, beside its records. */
  readonly searchIndexStore: SearchIndexStore;
  /** A search index outside the table (OpenSearch Serverless) when the deployment has one; else the embedded one. */
  readonly searchIndex?: SearchIndex | undefined;
  /** An embedding model (Bedrock) when the deployment names one; else the model-free default. */
  readonly embedder?: Embedder | undefined;
}

/** The shared machinery a capability module builds on: the ports, and the services every capability shares. */
export interface Kernel extends KernelPorts {
  /** The one way a revision is written: appended conditionally, under an expected revision, or optimistically. */
  readonly writer: RevisionWriter;
  /** The lifecycle every long-term kind shares (create, read, list, revise, delete, history), for one kind. */
  recordService<Content>(spec: RecordServiceSpec<Content>): RecordService<Content>;
  /** Starting workflows for an organisation and reading their runs. */
  readonly workflows: WorkflowService;
}

export const assembleKernel = (
  ports: KernelPorts,
  workflows: { readonly starter: WorkflowStarter; readonly names: readonly string[] },
): Kernel => {
  const writer = new RevisionWriter({ revisions: ports.revisions, ids: ports.ids, clock: ports.clock });
  const recordDependencies = {
    revisions: ports.revisions,
    heads: ports.heads,
    writer,
    idempotency: ports.idempotency,
    clock: ports.clock,
    ids: ports.ids,
    idempotencyKeyHours: () => kernelRetention.of(ports.config.current()).idempotencyKeyHours,
  };
  return {
    ...ports,
    writer,
    recordService: (spec) => new RecordService(recordDependencies, spec),
    workflows: new WorkflowService({
      starter: workflows.starter,
      runs: ports.workflowRuns,
      ids: ports.ids,
      clock: ports.clock,
      workflows: workflows.names,
    }),
  };
};
