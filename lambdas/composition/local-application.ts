import { contentCipherOver, uncachedContentCipherOver } from '../adapters/crypto/hierarchical-keys.ts';
import { localHierarchicalKeys } from '../adapters/crypto/local-hierarchical-keys.ts';
import { type LocalDynamoDbEngine, localDynamoDbClient } from '../adapters/dynamodb/dynamodb-client.ts';
import { DynamoDbClientQuotaLedger } from '../adapters/dynamodb/dynamodb-client-quota-ledger.ts';
import { DynamoDbDeadLetterQueue } from '../adapters/dynamodb/dynamodb-dead-letter-queue.ts';
import { dynamoDbPorts } from '../adapters/dynamodb/dynamodb-ports.ts';
import { ensureMemoryTable } from '../adapters/dynamodb/memory-table.ts';
import { MemoryTableClient } from '../adapters/dynamodb/memory-table-client.ts';
import { LocalEventBus } from '../adapters/events/local-event-bus.ts';
import { InMemoryMetrics } from '../adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../adapters/observability/json-lines-log.ts';
import { LocalWorkflowRunner } from '../adapters/workflows/local-workflow-runner.ts';
import type { ConfigProvider } from '../kernel/config/config-provider.port.ts';
import type { OutboxEntry } from '../kernel/events/outbox.port.ts';
import { RecordKinds } from '../kernel/namespaces/record-kind.ts';
import type { Log } from '../kernel/observability/log.port.ts';
import type { Metrics } from '../kernel/observability/metrics.port.ts';
import { type Clock, systemClock } from '../kernel/time/clock.ts';
import { createUlidGenerator } from '../kernel/time/ids.ts';
import type { Sleep } from '../kernel/workflows/workflow-runner.ts';
import type { AnyCapabilityModule } from './capability-module.ts';
import { type ComposedService, composeService } from './compose-service.ts';
import { recordKindsOf, withRequiredModules, workflowsOf } from './module-tables.ts';

export interface LocalApplicationOptions {
  /** The embedded DynamoDB-compatible engine. */
  dynamoDb: LocalDynamoDbEngine;
  tableName: string;
  keyFile: string;
  /** The branch key store's table on the same engine. @default `{tableName}-branch-keys` */
  keyStoreTableName?: string;
  /** Seconds a branch key is used from memory before the local KMS unwraps it again. @default BRANCH_KEY_CACHE_SECONDS.default */
  branchKeyCacheSeconds?: number;
  config: ConfigProvider;
  /** Every module local mode serves: the whole service. */
  modules: readonly AnyCapabilityModule[];
  clock?: Clock;
  metrics?: Metrics;
  /** JSON lines on stderr unless a test keeps them. */
  log?: Log;
  /** How the local workflow runner waits between retries (tests pass one that does not wait). */
  sleep?: Sleep;
}

/** Local mode's service, plus the local stand-ins a developer or a test may want to reach. */
export interface LocalApplication extends ComposedService {
  readonly local: {
    /** Releases the storage client's connections (on shutdown, before the engine closes). */
    readonly close: () => Promise<void>;
    /** Subscribes to committed outbox entries: local mode's stand-in for the table stream. */
    readonly onCommitted: (listener: (entry: OutboxEntry) => void) => void;
    readonly bus: LocalEventBus;
    readonly deadLetters: DynamoDbDeadLetterQueue;
    readonly workflowRunner: LocalWorkflowRunner;
  };
}

/**
 * Local mode: every module on the same DynamoDB adapters against the embedded engine, the same Encryption
 * SDK and hierarchical keyring (branch keys in a key store table on the engine, KMS played in process over a
 * local key file), an in-process bus with dead letters kept in the table, and a workflow runner executing the
 * same step lists as the state machines. Creates the tables and the key file on first use.
 */
export const localApplication = async (options: LocalApplicationOptions): Promise<LocalApplication> => {
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new InMemoryMetrics();
  const client = localDynamoDbClient(options.dynamoDb);
  const tableName = options.tableName;
  await ensureMemoryTable(client, tableName);
  const keys = await localHierarchicalKeys({
    client,
    keyStoreTableName: options.keyStoreTableName ?? `${tableName}-branch-keys`,
    keyFile: options.keyFile,
    cacheSeconds: options.branchKeyCacheSeconds,
    metrics,
  });
  const cipher = contentCipherOver(keys);
  const commitListeners: ((entry: OutboxEntry) => void)[] = [];
  // One client of the table for every adapter, the dead letters' and the client quota ledger's too.
  const table = new MemoryTableClient({ client, tableName, metrics });
  const storage = dynamoDbPorts({
    table,
    cipher,
    indexCipher: uncachedContentCipherOver(keys),
    clock,
    metrics,
    config: options.config,
    onCommitted: (entry) => {
      for (const listener of commitListeners) listener(entry);
    },
  });
  const deadLetters = new DynamoDbDeadLetterQueue({ table, clock });
  const modules = withRequiredModules(options.modules);
  let bus: LocalEventBus | undefined;
  let workflowRunner: LocalWorkflowRunner | undefined;
  const service = composeService(
    {
      config: options.config,
      metrics,
      log: options.log ?? jsonLinesLog(),
      clock,
      ids: createUlidGenerator(),
      kinds: RecordKinds.of(recordKindsOf(modules)),
      ...storage,
      // One process is one environment, so locally each client's bound is exact.
      clientQuota: new DynamoDbClientQuotaLedger({ table }),
      publisher: (consumers) => {
        bus = new LocalEventBus({ consumers, deadLetters, metrics });
        return bus;
      },
      workflowStarter: (executor) => {
        workflowRunner = new LocalWorkflowRunner({ executor, ...(options.sleep && { sleep: options.sleep }) });
        return workflowRunner;
      },
      workflowNames: workflowsOf(modules).map((workflow) => workflow.name),
    },
    modules,
  );
  if (!bus || !workflowRunner) throw new Error('the local service was composed without its bus or runner');
  return {
    ...service,
    local: {
      close: async () => client.destroy(),
      onCommitted: (listener) => commitListeners.push(listener),
      bus,
      deadLetters,
      workflowRunner,
    },
  };
};
