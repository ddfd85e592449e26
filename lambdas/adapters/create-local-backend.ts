import { assembleBackend, type Backend } from '../core/backend.ts';
import type { ConfigProvider } from '../core/config/config-provider.port.ts';
import type { Metrics } from '../core/observability/metrics.port.ts';
import type { OutboxEntry } from '../core/records/record-store.port.ts';
import { type Clock, systemClock } from '../core/time/clock.ts';
import { createUlidGenerator } from '../core/time/ids.ts';
import type { Sleep } from '../core/workflows/workflow-runner.ts';
import { CachingContentCipher } from './crypto/caching-content-cipher.ts';
import { EncryptionSdkCipher } from './crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from './crypto/local-key-file.ts';
import { type LocalDynamoDbEngine, localDynamoDbClient } from './dynamodb/dynamodb-client.ts';
import { DynamoDbDeadLetterQueue } from './dynamodb/dynamodb-dead-letter-queue.ts';
import { dynamoDbPorts } from './dynamodb/dynamodb-ports.ts';
import { ensureMemoryTable } from './dynamodb/memory-table.ts';
import { LocalEventBus } from './events/local-event-bus.ts';
import { InMemoryMetrics } from './observability/in-memory-metrics.ts';
import { LocalWorkflowRunner } from './workflows/local-workflow-runner.ts';

export interface LocalBackendOptions {
  /** The embedded DynamoDB-compatible engine. */
  dynamoDb: LocalDynamoDbEngine;
  tableName: string;
  keyFile: string;
  config: ConfigProvider;
  clock?: Clock;
  metrics?: Metrics;
  /** How the local workflow runner waits between retries (tests pass one that does not wait). */
  sleep?: Sleep;
}

/** Local mode's backend, plus the local stand-ins a developer or a test may want to reach. */
export interface LocalBackend extends Backend {
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
 * Local mode: the same DynamoDB adapters against the embedded engine, the same Encryption SDK over a raw
 * AES key from a local file, an in-process bus with dead letters kept in the table, and a workflow runner
 * executing the same step lists as the state machines. Creates the table and the key on first use.
 */
export const createLocalBackend = async (options: LocalBackendOptions): Promise<LocalBackend> => {
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new InMemoryMetrics();
  const client = localDynamoDbClient(options.dynamoDb);
  const tableName = options.tableName;
  await ensureMemoryTable(client, tableName);
  const cipher = new CachingContentCipher({
    inner: new EncryptionSdkCipher({ keys: localKeyring(await loadOrCreateLocalKey(options.keyFile)), metrics }),
  });
  const commitListeners: ((entry: OutboxEntry) => void)[] = [];
  const storage = dynamoDbPorts({
    client,
    tableName,
    cipher,
    clock,
    metrics,
    config: options.config,
    onCommitted: (entry) => {
      for (const listener of commitListeners) listener(entry);
    },
  });
  const deadLetters = new DynamoDbDeadLetterQueue({ client, tableName, clock });
  let bus: LocalEventBus | undefined;
  let workflowRunner: LocalWorkflowRunner | undefined;
  const backend = assembleBackend({
    config: options.config,
    metrics,
    clock,
    ids: createUlidGenerator(),
    ...storage,
    publisher: (consumers) => {
      bus = new LocalEventBus({ consumers, deadLetters, metrics });
      return bus;
    },
    workflowStarter: (executor) => {
      workflowRunner = new LocalWorkflowRunner({ executor, ...(options.sleep && { sleep: options.sleep }) });
      return workflowRunner;
    },
  });
  if (!bus || !workflowRunner) throw new Error('the local backend was assembled without its bus or runner');
  return {
    ...backend,
    local: {
      close: async () => client.destroy(),
      onCommitted: (listener) => commitListeners.push(listener),
      bus,
      deadLetters,
      workflowRunner,
    },
  };
};
