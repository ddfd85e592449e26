import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';
import { CONTEXT_LEFT_OUT, CONTEXT_OFFSET } from '../adapters/crypto/context-left-out.ts';
import { InMemoryMetrics } from '../adapters/observability/in-memory-metrics.ts';
import type { MetricName, Metrics } from '../kernel/observability/metrics.port.ts';
import {
  type AttributeMap,
  decodeBinary,
  type IndexDefinition,
  type IndexEntry,
  indexesOf,
  indexWrites,
} from './index-write-units.ts';

/**
 * Work measured on its way to the embedded engine (the SDK's requests and the engine's answers): what DynamoDB
 * would bill for it and what a Lambda function in AWS would do for it that the local server, one process with
 * shared caches, does not.
 */
export interface EngineWork {
  /** Requests to the service's tables (`RequestCostMeterOptions.tables`), and the capacity DynamoDB reported. */
  requests: number;
  readUnits: number;
  writeUnits: number;
  /** The part of `writeUnits` spent on updates (belief merges, quota leases, maintenance). */
  updateWriteUnits: number;
  /** Writes refused by their condition: DynamoDB bills them (a write unit per KB of the item sent), the engine reports none. */
  failedConditionUnits: number;
  /** Index writes DynamoDB bills and the engine leaves out of its consumed capacity, from the tables' indexes. */
  indexWriteUnits: number;
  /**
   * Requests to any other table: the branch key store's. Its reads are this process's branch key cache misses
   * (AWS is modelled apart, from `keys`); its writes create a scope's branch key, once per scope.
   */
  keyStoreRequests: number;
  keyStoreReadUnits: number;
  keyStoreWriteUnits: number;
  /** Payloads encrypted and decrypted as an AWS function of its own would (its own caches), by the keyring used. */
  keys: KeyWork;
}

export interface KeyWork {
  /** Ciphertexts written, each a data key: one KMS GenerateDataKey with the per-record KMS keyring. */
  recordKeysGenerated: number;
  /** Ciphertexts read that the function's own content cache would not hold: one KMS Decrypt each (per-record keyring). */
  recordKeysDecrypted: number;
  /** Round trips to KMS for those, in sequence (the items of one page are decrypted side by side). */
  recordKeyRoundTrips: number;
  /** Uses of a branch key (hierarchical keyring), and the branch key misses of the function's own cache during the run. */
  branchKeyUses: number;
  branchKeyMisses: number;
}

/** One operation's requests (an AWS function each), and what its commits caused afterwards. */
export interface OperationCost {
  requests: number;
  /** What the storage adapters counted through the metrics port (today's cost model reads these). */
  storageRequests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
  /** Calls to the key service this process made (KMS in AWS; the local stand-in here). */
  keyOperations: number;
  /** Per request, in completion order: time in the handler, ms. */
  handlerMilliseconds: number[];
  /** Per request: time with at least one storage request in flight, ms (the rest of the handler time is CPU). */
  storageMilliseconds: number[];
  /** Per request: storage round trips in sequence (a request made while another was in flight overlaps it). */
  storageRoundTrips: number[];
  /** Requests that counted a metric: one embedded-metric-format log line each in AWS. */
  metricLines: number;
  engine: EngineWork;
  /** Distinct branch keys (and the direction each was used in) the function used during the run. */
  branchKeysUsed: number;
  /** Events this operation committed, relayed and consumed after the response (the stream, the bus, the consumers). */
  caused: CausedCost;
}

export interface CausedCost {
  /** Events relayed, by record kind (what the bus rules filter on). */
  eventsByKind: Record<string, number>;
  /** Bytes of the events as published (`Detail`, `DetailType`, `Source`, bus name). */
  eventBytes: number;
  /** Per event, in completion order: wall time of the relay's and consumers' work, ms. */
  eventMilliseconds: number[];
  /** Per event: the part of it with a storage request in flight, ms. */
  eventStorageMilliseconds: number[];
  /** Per event: storage round trips in sequence, the relay's and the consumers'. */
  eventStorageRoundTrips: number[];
  /** Events whose relaying counted a metric (one embedded-metric-format line per relay invocation in AWS). */
  metricLines: number;
  engine: EngineWork;
}

/** What the meter needs to know of the tables and of the keyring's caches. */
export interface RequestCostMeterOptions {
  /**
   * The service's tables as created (key schema and indexes). Requests to any other table on the engine (the
   * branch key store's) are booked apart.
   */
  readonly tables: readonly {
    readonly TableName?: string | undefined;
    readonly KeySchema?: unknown;
    readonly GlobalSecondaryIndexes?: unknown;
  }[];
  /** How long a function keeps an unwrapped branch key (the hierarchical keyring's cache period), seconds. */
  readonly branchKeyCacheSeconds?: number;
  /** Plaintexts a function keeps (the content cache's capacity). */
  readonly contentCacheCapacity?: number;
  /**
   * Whether the SDK's requests and the engine's answers are read (`EngineWork`, and which operation committed each
   * relayed event). Reading them costs the server a JSON parse of every request and answer, which no function in AWS
   * does, so a run that measures latency leaves it off and a run that measures cost turns it on. Default on.
   */
  readonly engineWork?: boolean;
  readonly now?: () => number;
}

/** The hierarchical keyring's default cache period (`BRANCH_KEY_CACHE_SECONDS` in the crypto adapter; a test ties them). */
export const DEFAULT_BRANCH_KEY_CACHE_SECONDS = 300;
/** `CachingContentCipher`'s default capacity. */
export const DEFAULT_CONTENT_CACHE_CAPACITY = 5000;

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
/** Where work nobody's request caused is booked (the sweep; events committed before the meter knew them). */
export const UNATTRIBUTED_RELAY_ENTRY = 'eventRelay';

interface Context {
  readonly operationId: string;
  readonly cost: OperationCost;
  /** The work this context books: the request's own, or the events' it caused. */
  readonly work: EngineWork;
  /** The function whose caches are simulated (the operation, or the consumers of its events). */
  readonly sandbox: Sandbox;
  inFlight: number;
  roundTrips: number;
  storageMilliseconds: number;
  busySince: number;
  countedMetric: boolean;
}

/** One AWS function's caches, as the meter simulates them: content by ciphertext, branch keys by id. */
interface Sandbox {
  readonly content: Map<string, true>;
  readonly branchKeys: Map<string, number>;
  readonly branchKeysUsed: Set<string>;
}

/**
 * Attributes the storage requests, capacity units and key operations of each HTTP request to its operation,
 * and the relay's and consumers' work to the operation whose commit caused it, so a benchmark can price an
 * operation from everything it causes. Local mode only.
 *
 * Two sources: the metrics port (what the adapters count, as before), and the SDK's requests on their way to the
 * embedded engine (`observe`), where DynamoDB's index writes, each function's own key caches and the storage
 * round trips are read off the items themselves.
 */
export class RequestCostMeter implements Metrics {
  readonly totals = new InMemoryMetrics();
  readonly #current = new AsyncLocalStorage<Context>();
  readonly #byOperation = new Map<string, OperationCost>();
  readonly #sandboxes = new Map<string, Sandbox>();
  /** Which operation committed each event still to be relayed, by event id. */
  readonly #committedBy = new Map<string, string>();
  readonly #indexes = new Map<string, readonly IndexDefinition[]>();
  /** The entries in every table's indexes now (so that a write that removes one is priced). */
  readonly #indexed = new Map<string, IndexEntry>();
  readonly #branchKeyTtlMs: number;
  readonly #contentCapacity: number;
  readonly #engineWork: boolean;
  readonly #now: () => number;

  constructor(options: RequestCostMeterOptions = { tables: [] }) {
    for (const table of options.tables) this.#learnTable(table);
    this.#branchKeyTtlMs = (options.branchKeyCacheSeconds ?? DEFAULT_BRANCH_KEY_CACHE_SECONDS) * 1000;
    this.#contentCapacity = options.contentCacheCapacity ?? DEFAULT_CONTENT_CACHE_CAPACITY;
    this.#engineWork = options.engineWork ?? true;
    this.#now = options.now ?? Date.now;
  }

  /** Runs one request with its costs booked to `operationId`. */
  async measure<T>(operationId: string, run: () => Promise<T>): Promise<T> {
    const cost = this.#costOf(operationId);
    cost.requests += 1;
    const context = this.#context(operationId, cost, cost.engine, this.#sandboxOf(operationId));
    const started = performance.now();
    try {
      return await this.#current.run(context, run);
    } finally {
      cost.handlerMilliseconds.push(performance.now() - started);
      cost.storageMilliseconds.push(context.storageMilliseconds);
      cost.storageRoundTrips.push(context.roundTrips);
      if (context.countedMetric) cost.metricLines += 1;
    }
  }

  /**
   * Runs the relay's and the consumers' work for one committed event, booked to the operation that committed it
   * (the sweep's and unknown events' to `UNATTRIBUTED_RELAY_ENTRY`).
   */
  async measureEvent<T>(
    event: { event_id: string; record_kind: string } | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    const operationId = (event && this.#committedBy.get(event.event_id)) ?? UNATTRIBUTED_RELAY_ENTRY;
    if (event) this.#committedBy.delete(event.event_id);
    const cost = this.#costOf(operationId);
    if (operationId === UNATTRIBUTED_RELAY_ENTRY) cost.requests += 1;
    const { caused } = cost;
    if (event) caused.eventsByKind[event.record_kind] = (caused.eventsByKind[event.record_kind] ?? 0) + 1;
    const context = this.#context(operationId, cost, caused.engine, this.#sandboxOf(`${operationId} → consumers`));
    const started = performance.now();
    try {
      return await this.#current.run(context, run);
    } finally {
      caused.eventMilliseconds.push(performance.now() - started);
      caused.eventStorageMilliseconds.push(context.storageMilliseconds);
      caused.eventStorageRoundTrips.push(context.roundTrips);
      if (context.countedMetric) caused.metricLines += 1;
    }
  }

  count(name: MetricName, value = 1): void {
    this.totals.count(name, value);
    const context = this.#current.getStore();
    if (context) context.countedMetric = true;
  }

  storageRequest(request: { operation: string; capacityUnits: number }): void {
    this.totals.storageRequest(request);
    const context = this.#current.getStore();
    if (context && context.work === context.cost.engine) {
      const { cost } = context;
      cost.storageRequests += 1;
      if (WRITE_OPERATIONS.has(request.operation)) cost.writeCapacityUnits += request.capacityUnits;
      else cost.readCapacityUnits += request.capacityUnits;
    }
  }

  keyOperation(operation: Parameters<Metrics['keyOperation']>[0]): void {
    (this.totals as Metrics).keyOperation(operation);
    const context = this.#current.getStore();
    if (context && context.work === context.cost.engine) context.cost.keyOperations += 1;
  }

  /**
   * The engine, with every request the SDK sends it observed on the way: local mode hands this to the storage
   * adapters instead of the engine itself.
   */
  observe<Engine extends { readonly endpoint: string; readonly requestHandler?: EngineHandler | undefined }>(
    engine: Engine,
  ): Engine {
    const inner = engine.requestHandler;
    if (!inner) return engine;
    const handler: EngineHandler = {
      metadata: inner.metadata,
      handle: (request, options) => this.#handle(inner, request, options),
      updateHttpClientConfig: (...args) => inner.updateHttpClientConfig?.(...args),
      httpHandlerConfigs: () => inner.httpHandlerConfigs?.() ?? {},
      destroy: () => inner.destroy?.(),
    } as EngineHandler;
    return { ...engine, requestHandler: handler };
  }

  report(): Record<string, OperationCost> {
    for (const [operationId, cost] of this.#byOperation)
      cost.branchKeysUsed = this.#sandboxes.get(operationId)?.branchKeysUsed.size ?? 0;
    return Object.fromEntries(this.#byOperation);
  }

  async #handle(
    inner: EngineHandler,
    request: HttpRequest,
    options?: HttpHandlerOptions,
  ): Promise<{ response: HttpResponse }> {
    const context = this.#current.getStore();
    if (context) {
      if (context.inFlight === 0) {
        context.roundTrips += 1;
        context.busySince = performance.now();
      }
      context.inFlight += 1;
    }
    let answer: { response: HttpResponse } | undefined;
    try {
      answer = await inner.handle(request, options);
      return answer;
    } finally {
      if (context) {
        context.inFlight -= 1;
        if (context.inFlight === 0) context.storageMilliseconds += performance.now() - context.busySince;
      }
      // Measurement never fails a request: anything unreadable is left uncounted.
      try {
        if (this.#engineWork) {
          const target = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
          this.#account(target, request.body, answer?.response, context);
        }
      } catch {}
    }
  }

  #account(
    target: string,
    requestBody: unknown,
    response: HttpResponse | undefined,
    context: Context | undefined,
  ): void {
    const input = parseJson(requestBody) as Record<string, unknown> | undefined;
    if (!input) return;
    if (target === 'CreateTable' || target === 'DescribeTable') return;
    const tableName = typeof input.TableName === 'string' ? input.TableName : undefined;
    const output = (parseJson(response?.body) ?? {}) as Record<string, unknown>;
    const failed = response === undefined || response.statusCode !== 200;
    const conditionFailed = failed && String(output.__type ?? '').endsWith('ConditionalCheckFailedException');
    if (target === 'PutItem' && !failed && tableName) this.#noteCommitted(input.Item as AttributeMap, context);
    if (!context || !tableName) {
      // Outside any request (start-up, tests): index entries are still tracked, so later writes are priced right.
      if (!failed && tableName) this.#indexWrites(target, tableName, input, output);
      return;
    }
    const { work } = context;
    const units = consumedUnits(output);
    if (!this.#indexes.has(tableName)) {
      work.keyStoreRequests += 1;
      if (WRITE_OPERATIONS.has(target)) work.keyStoreWriteUnits += units;
      else work.keyStoreReadUnits += units;
      return;
    }
    work.requests += 1;
    if (WRITE_OPERATIONS.has(target)) work.writeUnits += units;
    else work.readUnits += units;
    if (target === 'UpdateItem') work.updateWriteUnits += units;
    if (conditionFailed) work.failedConditionUnits += failedWriteUnits(target, input);
    if (!failed) work.indexWriteUnits += this.#indexWrites(target, tableName, input, output);
    this.#accountKeys(target, input, output, failed, context);
  }

  /**
   * An outbox marker put announces an event: remembered so its relaying is booked to this request. (Its revision
   * put follows; a write that then loses to another writer is booked an event that never went out, which only
   * ever overstates the cost.)
   */
  #noteCommitted(item: AttributeMap | undefined, context: Context | undefined): void {
    const outboxEvent = item?.outboxEvent?.S;
    if (!outboxEvent || !context || context.work !== context.cost.engine) return;
    const event = JSON.parse(outboxEvent) as { event_id?: string; event_type?: string; record_kind?: string };
    if (typeof event.event_id !== 'string') return;
    this.#committedBy.set(event.event_id, context.operationId);
    // What PutEvents carries for it: the event as `Detail`, its type, the source and the bus name (≈ 20 bytes).
    context.cost.caused.eventBytes +=
      Buffer.byteLength(outboxEvent) + Buffer.byteLength(event.event_type ?? '') + 'memory-hub'.length + 20;
    if (this.#committedBy.size > 100_000) this.#committedBy.clear();
  }

  #indexWrites(target: string, tableName: string, input: Record<string, unknown>, output: Record<string, unknown>) {
    const indexes = this.#indexes.get(tableName);
    if (!indexes || indexes.length === 0) return 0;
    return indexWrites({ operation: target, tableName, indexes, input, output, indexed: this.#indexed });
  }

  /** Ciphertexts written and read, priced as the function's own caches would serve them in AWS. */
  #accountKeys(
    target: string,
    input: Record<string, unknown>,
    output: Record<string, unknown>,
    failed: boolean,
    context: Context,
  ): void {
    const { keys } = context.work;
    if (target === 'PutItem' && !failed) {
      for (const ciphertext of ciphertextsOf(input.Item as AttributeMap | undefined)) {
        // The same bytes written again (the head item beside its revision) are a copy, not another encryption.
        if (this.#remembered(context.sandbox, ciphertext)) continue;
        const header = parseMessageHeader(ciphertext);
        this.#remember(context.sandbox, ciphertext);
        if (header?.branchKey) this.#useBranchKey(context, `${header.branchKey} encrypt`);
        else keys.recordKeysGenerated += 1;
      }
      return;
    }
    const items =
      target === 'GetItem'
        ? [output.Item as AttributeMap | undefined]
        : target === 'Query'
          ? ((output.Items as AttributeMap[] | undefined) ?? [])
          : [];
    let missed = false;
    for (const item of items)
      for (const ciphertext of ciphertextsOf(item)) {
        if (this.#remembered(context.sandbox, ciphertext)) continue;
        const header = parseMessageHeader(ciphertext);
        this.#remember(context.sandbox, ciphertext);
        if (header?.branchKey) this.#useBranchKey(context, `${header.branchKey} decrypt ${header.branchKeyVersion}`);
        else {
          keys.recordKeysDecrypted += 1;
          missed = true;
        }
      }
    if (missed) keys.recordKeyRoundTrips += 1;
  }

  #useBranchKey(context: Context, key: string): void {
    const { keys } = context.work;
    const sandbox = context.sandbox;
    keys.branchKeyUses += 1;
    sandbox.branchKeysUsed.add(key);
    const now = this.#now();
    const expires = sandbox.branchKeys.get(key);
    if (expires !== undefined && expires > now) return;
    keys.branchKeyMisses += 1;
    sandbox.branchKeys.set(key, now + this.#branchKeyTtlMs);
  }

  #remembered(sandbox: Sandbox, ciphertext: Buffer): boolean {
    const key = digest(ciphertext);
    if (!sandbox.content.has(key)) return false;
    sandbox.content.delete(key);
    sandbox.content.set(key, true);
    return true;
  }

  #remember(sandbox: Sandbox, ciphertext: Buffer): void {
    sandbox.content.set(digest(ciphertext), true);
    if (sandbox.content.size > this.#contentCapacity) {
      const oldest = sandbox.content.keys().next().value;
      if (oldest !== undefined) sandbox.content.delete(oldest);
    }
  }

  #learnTable(table: RequestCostMeterOptions['tables'][number]): void {
    if (typeof table.TableName === 'string') this.#indexes.set(table.TableName, indexesOf(table));
  }

  #context(operationId: string, cost: OperationCost, work: EngineWork, sandbox: Sandbox): Context {
    return {
      operationId,
      cost,
      work,
      sandbox,
      inFlight: 0,
      roundTrips: 0,
      storageMilliseconds: 0,
      busySince: 0,
      countedMetric: false,
    };
  }

  #sandboxOf(name: string): Sandbox {
    let sandbox = this.#sandboxes.get(name);
    if (!sandbox) {
      sandbox = { content: new Map(), branchKeys: new Map(), branchKeysUsed: new Set() };
      this.#sandboxes.set(name, sandbox);
    }
    return sandbox;
  }

  #costOf(operationId: string): OperationCost {
    let cost = this.#byOperation.get(operationId);
    if (!cost) {
      cost = {
        requests: 0,
        storageRequests: 0,
        readCapacityUnits: 0,
        writeCapacityUnits: 0,
        keyOperations: 0,
        handlerMilliseconds: [],
        storageMilliseconds: [],
        storageRoundTrips: [],
        metricLines: 0,
        engine: emptyEngineWork(),
        branchKeysUsed: 0,
        caused: {
          eventsByKind: {},
          eventBytes: 0,
          eventMilliseconds: [],
          eventStorageMilliseconds: [],
          eventStorageRoundTrips: [],
          metricLines: 0,
          engine: emptyEngineWork(),
        },
      };
      this.#byOperation.set(operationId, cost);
    }
    return cost;
  }
}

type EngineHandler = RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> & {
  updateHttpClientConfig?: (...args: never[]) => void;
  httpHandlerConfigs?: () => Record<string, unknown>;
  destroy?: () => void;
};

export const emptyEngineWork = (): EngineWork => ({
  requests: 0,
  readUnits: 0,
  writeUnits: 0,
  updateWriteUnits: 0,
  failedConditionUnits: 0,
  indexWriteUnits: 0,
  keyStoreRequests: 0,
  keyStoreReadUnits: 0,
  keyStoreWriteUnits: 0,
  keys: {
    recordKeysGenerated: 0,
    recordKeysDecrypted: 0,
    recordKeyRoundTrips: 0,
    branchKeyUses: 0,
    branchKeyMisses: 0,
  },
});

const parseJson = (body: unknown): unknown => {
  if (body === undefined || body === null) return undefined;
  // A view of the bytes: the SDK's body type warns when it is read as a string (as `Buffer.from(body)` would).
  const bytes = body as Uint8Array;
  const text =
    typeof body === 'string' ? body : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.length === 0 ? undefined : JSON.parse(text);
};

const consumedUnits = (output: Record<string, unknown>): number => {
  const consumed = output.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  const all = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return all.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
};

/** A put refused by its condition is billed for the item it would have written; an update or delete for 1 KB. */
const failedWriteUnits = (target: string, input: Record<string, unknown>): number =>
  target === 'PutItem' ? Math.max(1, Math.ceil(JSON.stringify(input.Item ?? {}).length / 1024)) : 1;

/** The binary attributes of an item that hold an Encryption SDK message. */
const ciphertextsOf = (item: AttributeMap | undefined): Buffer[] => {
  if (!item) return [];
  const found: Buffer[] = [];
  for (const value of Object.values(item)) {
    if (typeof value?.B !== 'string') continue;
    const bytes = decodeBinary(value.B);
    if (bytes[0] === 0x01 || bytes[0] === 0x02 || bytes[0] === CONTEXT_LEFT_OUT) found.push(bytes);
  }
  return found;
};

const digest = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('base64');

/**
 * The keyring an Encryption SDK message was written with, from its header: a data key wrapped by a branch key
 * (`aws-kms-hierarchy`, whose provider info is the branch key id and whose wrapped key carries the version), or
 * one of its own (KMS, or the local raw key standing in for it).
 */
export const parseMessageHeader = (
  message: Uint8Array,
): { providerId: string; branchKey?: string; branchKeyVersion?: string } | undefined => {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  let offset: number;
  // A message stored without its encryption context (context-left-out.ts) has no context to skip.
  if (bytes[0] === CONTEXT_LEFT_OUT) offset = CONTEXT_OFFSET;
  else if (bytes[0] === 0x02) offset = CONTEXT_OFFSET + 2 + bytes.readUInt16BE(CONTEXT_OFFSET);
  else if (bytes[0] === 0x01 && bytes[1] === 0x80) offset = 2 + 2 + 16 + 2 + bytes.readUInt16BE(2 + 2 + 16);
  else return undefined;
  const dataKeys = bytes.readUInt16BE(offset);
  offset += 2;
  if (dataKeys < 1) return undefined;
  const field = () => {
    const length = bytes.readUInt16BE(offset);
    const value = bytes.subarray(offset + 2, offset + 2 + length);
    offset += 2 + length;
    return value;
  };
  const providerId = field().toString('utf8');
  const providerInfo = field();
  const wrapped = field();
  if (providerId !== 'aws-kms-hierarchy') return { providerId };
  // The wrapped key: a 16-byte salt, a 12-byte IV, then the branch key version (16 bytes, a UUID).
  return {
    providerId,
    branchKey: providerInfo.toString('utf8'),
    branchKeyVersion: wrapped.subarray(28, 44).toString('hex'),
  };
};
