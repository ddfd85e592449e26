/**
 * The AWS cost of one operation, modelled from what the local run measured and published unit prices.
 *
 * Two models. *Today's model* (`modelCostPerMillion`, kept so a report can set the two side by side) prices the
 * work inside the request as the local server counted it: DynamoDB capacity units, key operations, the local
 * handler time. The *corrected model* (`modelCorrectedCost`) prices everything a request causes in AWS: the index
 * writes DynamoDB bills but the embedded engine does not report, the outbox marker's put and delete, EventBridge
 * PutEvents and its archive, the consumers' invocations and their reads and writes, CloudWatch Logs ingestion,
 * X-Ray traces, a Lambda duration modelled for a 512 MB arm64 function, and the key service calls each function's
 * own caches would miss.
 *
 * Prices: us-east-1 list prices (on-demand / pay-per-request) as published on the AWS pricing pages linked below
 * in 2025 — DynamoDB's are those in force since its 2024-11-01 on-demand price cut. Free tiers and volume tiers are
 * ignored. Re-check the pages before quoting a figure.
 */
import { readFileSync } from 'node:fs';
import { LoggingFormat, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { BRANCH_KEY_CACHE_SECONDS } from '../lambdas/adapters/crypto/hierarchical-keys.ts';
import { DeploymentDocument } from '../lambdas/composition/deployment-document.ts';
import type { EngineWork, OperationCost } from '../lambdas/local/request-cost-meter.ts';
import { REQUEST_TRACING_DEFAULT } from '../lib/constructs/api-functions.ts';
import { ACCESS_LOG_FIELDS } from '../lib/constructs/http-api.ts';
import { SERVICE_FUNCTION_DEFAULTS } from '../lib/constructs/service-function.ts';
import { median, percentile } from './stats.ts';

/** https://aws.amazon.com/api-gateway/pricing/ — HTTP APIs, first 300 million requests per month. */
export const API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS = 1.0;
/** https://aws.amazon.com/lambda/pricing/ — Arm (Graviton2), per million requests. */
export const LAMBDA_ARM_USD_PER_MILLION_REQUESTS = 0.2;
/** https://aws.amazon.com/lambda/pricing/ — Arm, per GB-second, first 7.5 billion GB-s per month. */
export const LAMBDA_ARM_USD_PER_GB_SECOND = 0.000_013_333_4;
/** The memory size the functions are deployed with (`SERVICE_FUNCTION_DEFAULTS` in lib/). */
export const LAMBDA_MEMORY_MB: number = SERVICE_FUNCTION_DEFAULTS.memorySize;
export const LAMBDA_MEMORY_GB = LAMBDA_MEMORY_MB / 1024;
/** Whether the background functions are deployed with active tracing (`SERVICE_FUNCTION_DEFAULTS.tracing`). */
const BACKGROUND_TRACING_ACTIVE =
  String((SERVICE_FUNCTION_DEFAULTS as { readonly tracing?: string }).tracing ?? '') === Tracing.ACTIVE;
/**
 * Whether the request functions are (`REQUEST_TRACING_DEFAULT`). Pass-through records only what a caller sampled:
 * the load's callers send no trace header, and API Gateway's HTTP APIs make no sampling decision of their own.
 */
const REQUEST_TRACING_ACTIVE = String(REQUEST_TRACING_DEFAULT) === Tracing.ACTIVE;
/**
 * Whether Lambda writes its START, END and REPORT lines (`SERVICE_FUNCTION_DEFAULTS`): always in the text format,
 * in the JSON format only at a system log level of INFO or DEBUG.
 */
const PLATFORM_LOG_LINES = (() => {
  const { loggingFormat, systemLogLevel } = SERVICE_FUNCTION_DEFAULTS as {
    readonly loggingFormat?: string;
    readonly systemLogLevel?: string;
  };
  if (loggingFormat !== LoggingFormat.JSON) return true;
  return (
    systemLogLevel === undefined || systemLogLevel === SystemLogLevel.INFO || systemLogLevel === SystemLogLevel.DEBUG
  );
})();
/** Lambda bills duration in 1 ms increments. */
export const LAMBDA_BILLING_INCREMENT_MS = 1;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ — per million write request units (since 2024-11-01). */
export const DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS = 0.625;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ — per million read request units (since 2024-11-01). */
export const DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS = 0.125;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ — "GetRecords API calls invoked by AWS Lambda as part of DynamoDB triggers are free". */
export const DYNAMODB_STREAMS_LAMBDA_TRIGGER_USD = 0;
/** https://aws.amazon.com/kms/pricing/ — $0.03 per 10,000 symmetric requests (GenerateDataKey, Decrypt). */
export const KMS_USD_PER_MILLION_REQUESTS = 0.03 * 100;
/** https://aws.amazon.com/eventbridge/pricing/ — custom events published, per million; each 64 KB chunk is one event. */
export const EVENTBRIDGE_USD_PER_MILLION_EVENTS = 1.0;
export const EVENTBRIDGE_EVENT_CHUNK_BYTES = 64 * 1024;
/** https://aws.amazon.com/eventbridge/pricing/ — event archive, per GB processed (storage, $0.023 per GB-month, apart). */
export const EVENTBRIDGE_ARCHIVE_USD_PER_GB = 0.1;
/** https://aws.amazon.com/cloudwatch/pricing/ — Logs, Standard log class, data ingested per GB. */
export const CLOUDWATCH_LOGS_USD_PER_GB_INGESTED = 0.5;
/** https://aws.amazon.com/xray/pricing/ — traces recorded, and traces retrieved, per million. */
export const XRAY_USD_PER_MILLION_TRACES_RECORDED = 5.0;
export const XRAY_USD_PER_MILLION_TRACES_RETRIEVED = 0.5;

/**
 * What the corrected model assumes of AWS that the local run cannot measure. Latencies are per call from a
 * function in the same region over a kept-alive connection, typical rather than guaranteed figures.
 */
export interface AwsAssumptions {
  readonly dynamoDbRoundTripMs: number;
  readonly kmsRoundTripMs: number;
  readonly putEventsRoundTripMs: number;
  readonly cpuStretch: number;
  readonly streamShards: number;
  readonly streamPollsPerSecond: number;
  readonly putEventsEntriesPerCall: number;
  /** Whether the request functions trace actively (and whether their REPORT lines carry an XRAY line). */
  readonly requestTracing: boolean;
  /** Whether the relay and the consumers do (the consumers join the relay's trace). */
  readonly backgroundTracing: boolean;
  readonly samplingReservoirPerSecond: number;
  readonly samplingRate: number;
  readonly traceRetrievalsPerTrace: number;
  /** Whether Lambda writes its START, END and REPORT lines (text format, or system log level INFO). */
  readonly platformLogLines: boolean;
  readonly logEventOverheadBytes: number;
  readonly branchKeyCacheSeconds: number;
  readonly keyStoreReadUnitsPerMiss: number;
  readonly headProjectionReadUnits: number;
  readonly relayMarkerReadUnits: number;
}

export const AWS_ASSUMPTIONS: AwsAssumptions = {
  /** A DynamoDB GetItem, Query, PutItem or UpdateItem round trip ("single-digit milliseconds"). */
  dynamoDbRoundTripMs: 5,
  /** A KMS GenerateDataKey or Decrypt round trip. */
  kmsRoundTripMs: 8,
  /** An EventBridge PutEvents round trip (up to ten entries). */
  putEventsRoundTripMs: 15,
  /** Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB: CPU time stretches by this. */
  cpuStretch: 1769 / LAMBDA_MEMORY_MB,
  /** The table's stream: one shard at this size, polled by the Lambda event source four times a second. */
  streamShards: 1,
  streamPollsPerSecond: 4,
  /** PutEvents takes at most ten entries per call. */
  putEventsEntriesPerCall: 10,
  requestTracing: REQUEST_TRACING_ACTIVE,
  backgroundTracing: BACKGROUND_TRACING_ACTIVE,
  /**
   * The sampling Lambda's active tracing applies, per function: the first request each second and 5% of the rest
   * (Lambda does not let a function's sampling rate be configured).
   */
  samplingReservoirPerSecond: 1,
  samplingRate: 0.05,
  /** Each recorded trace is assumed retrieved once (the console's trace views, the service map). */
  traceRetrievalsPerTrace: 1,
  platformLogLines: PLATFORM_LOG_LINES,
  /** CloudWatch Logs sizes a log event as its message plus 26 bytes. */
  logEventOverheadBytes: 26,
  /** The hierarchical keyring's branch key cache period, seconds: its default, which the stack keeps. */
  branchKeyCacheSeconds: BRANCH_KEY_CACHE_SECONDS.default,
  /** A branch key store item, read strongly consistent: one read unit (items are well under 4 KB). */
  keyStoreReadUnitsPerMiss: 1,
  /** The head projection consumer's read of the head item's revision in AWS (its memo knows only its own writes). */
  headProjectionReadUnits: 1,
  /**
   * The stream relay's read of each event's outbox marker in AWS (strongly consistent, under 4 KB): local mode's
   * relay is handed the entry as committed and reads nothing.
   */
  relayMarkerReadUnits: 1,
};

/** The consumers of record events a deployment has, and the kinds each one's rule lets through. */
export interface DeployedConsumers {
  readonly consumers: readonly { readonly name: string; readonly recordKinds?: readonly string[] | undefined }[];
  /** Journal kinds (a session event is its own head): the head projection does nothing for their events. */
  readonly journalKinds: readonly string[];
}

/** The generated deployment document's consumers (a consumer without `recordKinds` gets every event). */
export const loadDeployedConsumers = (path = 'lambdas/generated/deployment.json'): DeployedConsumers => {
  const document = DeploymentDocument.parse(JSON.parse(readFileSync(path, 'utf8')));
  return {
    consumers: document.consumers.map(({ name, recordKinds }) => ({ name, recordKinds })),
    journalKinds: document.recordKinds.filter((kind) => kind.journal).map((kind) => kind.name),
  };
};

/** What one operation consumed on average, as measured locally over every run. */
export interface MeasuredOperationCost {
  operationId: string;
  requests: number;
  storageRequestsPerOperation: number;
  readUnitsPerOperation: number;
  writeUnitsPerOperation: number;
  keyOperationsPerOperation: number;
  /** Server-side handler time of the one-at-a-time requests, median, ms (today's proxy for the Lambda duration). */
  handlerP50Milliseconds: number;
  /** What the corrected model reads. */
  corrected: CorrectedInputs;
}

/** Per operation, averaged over its requests unless said otherwise. */
export interface CorrectedInputs {
  /** The request's own work on the engine, per operation. */
  engine: EngineWork;
  /** Handler time not spent waiting on storage, one request at a time, median, ms: the CPU a function spends. */
  cpuMilliseconds: number;
  /** Storage round trips in sequence, one request at a time, median. */
  storageRoundTrips: number;
  metricLines: number;
  /** Distinct branch keys (with direction) one function used over a run, mean over runs. */
  branchKeysUsed: number;
  /** Events committed, by record kind, per operation. */
  eventsByKind: Record<string, number>;
  eventBytesPerEvent: number;
  /** The relay's and consumers' work, per operation. */
  causedEngine: EngineWork;
  /** Per event, median over the one-at-a-time requests' events. */
  causedCpuMillisecondsPerEvent: number;
  causedStorageRoundTripsPerEvent: number;
  causedMetricLinesPerEvent: number;
}

/** Dollars per million operations, by service (today's model). */
export interface ModelledCost {
  apiGateway: number;
  lambdaRequests: number;
  lambdaDuration: number;
  dynamoDb: number;
  kms: number;
  total: number;
  billedMilliseconds: number;
}

/**
 * Folds cost reports (one per server run) into per-operation averages. `aloneOf(run, operation)` is how many of the
 * operation's requests in that run's report came last, one at a time (the service-time requests): their handler
 * time is the function's, not the shared event loop's.
 */
export const measuredCosts = (
  reports: readonly Record<string, OperationCost>[],
  operations: readonly string[],
  aloneOf: (run: number, operationId: string) => number,
): MeasuredOperationCost[] =>
  operations.map((operationId) => {
    const parts = reports
      .map((report, run) => ({ cost: report[operationId], alone: aloneOf(run, operationId) }))
      .filter((part): part is { cost: OperationCost; alone: number } => part.cost !== undefined);
    const costs = parts.map((part) => part.cost);
    const total = (pick: (cost: OperationCost) => number) => costs.reduce((sum, cost) => sum + pick(cost), 0);
    const requests = total((cost) => cost.requests);
    const per = (value: number) => (requests === 0 ? Number.NaN : value / requests);
    const lastOf = <T>(values: readonly T[] | undefined, count: number) => (values ?? []).slice(-Math.max(count, 1));
    const alone = (pick: (cost: OperationCost) => number[] | undefined) =>
      parts.flatMap((part) => lastOf(pick(part.cost), part.alone));
    const handlerAlone = alone((cost) => cost.handlerMilliseconds);
    const storageAlone = alone((cost) => cost.storageMilliseconds);
    const cpuAlone = handlerAlone.map((handler, index) => Math.max(0, handler - (storageAlone[index] ?? 0)));
    const events = total((cost) => sumValues(cost.caused?.eventsByKind));
    const causedMs = alone((cost) => cost.caused?.eventMilliseconds);
    const causedStorageMs = alone((cost) => cost.caused?.eventStorageMilliseconds);
    const eventsByKind: Record<string, number> = {};
    for (const cost of costs)
      for (const [kind, count] of Object.entries(cost.caused?.eventsByKind ?? {}))
        eventsByKind[kind] = (eventsByKind[kind] ?? 0) + count / requests;
    return {
      operationId,
      requests,
      storageRequestsPerOperation: per(total((cost) => cost.storageRequests)),
      readUnitsPerOperation: per(total((cost) => cost.readCapacityUnits)),
      writeUnitsPerOperation: per(total((cost) => cost.writeCapacityUnits)),
      keyOperationsPerOperation: per(total((cost) => cost.keyOperations)),
      handlerP50Milliseconds: percentile(handlerAlone, 50),
      corrected: {
        engine: scaleWork(
          costs.map((cost) => cost.engine),
          requests,
        ),
        cpuMilliseconds: percentile(cpuAlone, 50),
        storageRoundTrips: percentile(
          alone((cost) => cost.storageRoundTrips),
          50,
        ),
        metricLines: per(total((cost) => cost.metricLines ?? 0)),
        branchKeysUsed: costs.length === 0 ? 0 : total((cost) => cost.branchKeysUsed ?? 0) / costs.length,
        eventsByKind,
        eventBytesPerEvent: events === 0 ? 0 : total((cost) => cost.caused?.eventBytes ?? 0) / events,
        causedEngine: scaleWork(
          costs.map((cost) => cost.caused?.engine),
          requests,
        ),
        causedCpuMillisecondsPerEvent:
          causedMs.length === 0
            ? 0
            : median(causedMs.map((milliseconds, index) => Math.max(0, milliseconds - (causedStorageMs[index] ?? 0)))),
        causedStorageRoundTripsPerEvent:
          events === 0 ? 0 : median(alone((cost) => cost.caused?.eventStorageRoundTrips)),
        causedMetricLinesPerEvent: events === 0 ? 0 : total((cost) => cost.caused?.metricLines ?? 0) / events,
      },
    };
  });

/** The events an operation committed, per operation (0 for an operation not measured). */
export const eventsPerOperation = (measured: MeasuredOperationCost | undefined): number =>
  sumValues(measured?.corrected.eventsByKind);

/** Today's model: the work inside the request, as the local server counted it. */
export const modelCostPerMillion = (measured: MeasuredOperationCost): ModelledCost => {
  const billedMilliseconds =
    Math.ceil(measured.handlerP50Milliseconds / LAMBDA_BILLING_INCREMENT_MS) * LAMBDA_BILLING_INCREMENT_MS;
  const apiGateway = API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS;
  const lambdaRequests = LAMBDA_ARM_USD_PER_MILLION_REQUESTS;
  const lambdaDuration = durationUsdPerMillion(billedMilliseconds);
  const dynamoDb =
    measured.writeUnitsPerOperation * DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS +
    measured.readUnitsPerOperation * DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS;
  const kms = measured.keyOperationsPerOperation * KMS_USD_PER_MILLION_REQUESTS;
  return {
    apiGateway,
    lambdaRequests,
    lambdaDuration,
    dynamoDb,
    kms,
    total: apiGateway + lambdaRequests + lambdaDuration + dynamoDb + kms,
    billedMilliseconds,
  };
};

/** Where an operation runs: its own rate and the whole workload's event rate (batching, sampling). */
export interface WorkloadRates {
  /** This operation's requests per second (one function per handler). */
  operationPerSecond: number;
  /** Events per second committed by the whole workload (what the relay's stream carries). */
  eventsPerSecond: number;
}

/** Dollars per million operations, by service, for everything the operation causes in AWS. */
export interface CorrectedCost {
  apiGateway: number;
  /** The operation's own function: requests and modelled duration. */
  lambda: number;
  dynamoDb: number;
  kms: number;
  eventBridge: number;
  /** The relay's and the consumers' functions: requests and modelled duration. */
  eventFunctions: number;
  logs: number;
  xray: number;
  total: number;
  /** What the figures rest on, per operation. */
  facts: {
    billedMilliseconds: number;
    writeUnits: number;
    indexWriteUnits: number;
    readUnits: number;
    kmsCalls: number;
    events: number;
    consumerInvocations: number;
    relayInvocations: number;
    logBytes: number;
    traces: number;
  };
}

export const modelCorrectedCost = (
  measured: MeasuredOperationCost,
  rates: WorkloadRates,
  deployed: DeployedConsumers,
  assumptions: AwsAssumptions = AWS_ASSUMPTIONS,
): CorrectedCost => {
  const inputs = measured.corrected;
  const own = inputs.engine;
  const caused = inputs.causedEngine;
  const events = eventsPerOperation(measured);

  // Keys: what each function's own caches miss in AWS. A branch key is missed once per function per cache period
  // for every scope it serves (the run's functions saw every scope of the workload); a per-record key on every
  // write and on every read its content cache does not hold.
  const branchKeyMissesPerOperation =
    own.keys.branchKeyUses > 0 && rates.operationPerSecond > 0
      ? Math.min(
          own.keys.branchKeyUses,
          inputs.branchKeysUsed / (rates.operationPerSecond * assumptions.branchKeyCacheSeconds),
        )
      : 0;
  const causedBranchKeyMisses = Math.min(caused.keys.branchKeyUses, caused.keys.branchKeyMisses);
  const recordKeyCalls = (work: EngineWork) => work.keys.recordKeysGenerated + work.keys.recordKeysDecrypted;
  const kmsCalls = recordKeyCalls(own) + branchKeyMissesPerOperation + recordKeyCalls(caused) + causedBranchKeyMisses;
  const kmsRoundTrips = own.keys.recordKeysGenerated + own.keys.recordKeyRoundTrips + branchKeyMissesPerOperation * 2;

  // The operation's own function.
  const durationMs =
    inputs.cpuMilliseconds * assumptions.cpuStretch +
    inputs.storageRoundTrips * assumptions.dynamoDbRoundTripMs +
    kmsRoundTrips * assumptions.kmsRoundTripMs;
  const billedMilliseconds = Math.ceil(durationMs / LAMBDA_BILLING_INCREMENT_MS) * LAMBDA_BILLING_INCREMENT_MS;
  const lambda = LAMBDA_ARM_USD_PER_MILLION_REQUESTS + durationUsdPerMillion(billedMilliseconds);

  // The events: the stream (free to a Lambda trigger), the relay's invocations (batched per poll), PutEvents and
  // the archive, one invocation per consumer whose rule matches, and what the relay's head projection reads in
  // AWS (its own memo of heads it moved cannot spare it: the writer moved them, in another function).
  const relayBatch = Math.max(1, rates.eventsPerSecond / (assumptions.streamShards * assumptions.streamPollsPerSecond));
  const relayInvocations = events / relayBatch;
  let consumerInvocations = 0;
  let headProjectionReads = 0;
  for (const [kind, count] of Object.entries(inputs.eventsByKind)) {
    if (!deployed.journalKinds.includes(kind)) headProjectionReads += count;
    for (const consumer of deployed.consumers)
      if (consumer.recordKinds === undefined || consumer.recordKinds.includes(kind)) consumerInvocations += count;
  }
  const eventChunks = Math.max(1, Math.ceil(inputs.eventBytesPerEvent / EVENTBRIDGE_EVENT_CHUNK_BYTES));
  const eventBridge =
    events * eventChunks * EVENTBRIDGE_USD_PER_MILLION_EVENTS +
    perMillionGigabytes(events * inputs.eventBytesPerEvent) * EVENTBRIDGE_ARCHIVE_USD_PER_GB;
  const putEventsCalls = relayInvocations * Math.ceil(relayBatch / assumptions.putEventsEntriesPerCall);
  const eventMilliseconds =
    events * inputs.causedCpuMillisecondsPerEvent * assumptions.cpuStretch +
    (events * (inputs.causedStorageRoundTripsPerEvent + 1) + headProjectionReads) * assumptions.dynamoDbRoundTripMs +
    putEventsCalls * assumptions.putEventsRoundTripMs +
    // Each invocation is billed up to the next millisecond.
    ((relayInvocations + consumerInvocations) * LAMBDA_BILLING_INCREMENT_MS) / 2;
  const eventFunctions =
    (relayInvocations + consumerInvocations) * LAMBDA_ARM_USD_PER_MILLION_REQUESTS +
    durationUsdPerMillion(eventMilliseconds);

  // DynamoDB: the request's and the events' writes (index writes and refused conditions included) and reads, the
  // head projection's reads, and the key store reads of branch key misses (creating a scope's key, once, left out).
  const writeUnits = own.writeUnits + own.failedConditionUnits + caused.writeUnits + caused.failedConditionUnits;
  const indexWriteUnits = own.indexWriteUnits + caused.indexWriteUnits;
  const readUnits =
    own.readUnits +
    caused.readUnits +
    headProjectionReads * assumptions.headProjectionReadUnits +
    events * assumptions.relayMarkerReadUnits +
    (branchKeyMissesPerOperation + causedBranchKeyMisses) * assumptions.keyStoreReadUnitsPerMiss;
  const dynamoDb =
    (writeUnits + indexWriteUnits) * DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS +
    readUnits * DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS +
    DYNAMODB_STREAMS_LAMBDA_TRIGGER_USD;

  // CloudWatch Logs: each invocation's platform lines, the API's access log line, metric lines.
  const invocationLog = platformLogBytes(billedMilliseconds, assumptions);
  const logBytes =
    invocationLog +
    accessLogBytes(assumptions) +
    inputs.metricLines * metricLogBytes(assumptions) +
    (relayInvocations + consumerInvocations) * platformLogBytes(1, assumptions) +
    (events * inputs.causedMetricLinesPerEvent * metricLogBytes(assumptions)) / relayBatch;
  const logs = perMillionGigabytes(logBytes) * CLOUDWATCH_LOGS_USD_PER_GB_INGESTED;

  // X-Ray: the operation's function samples its own traces; the relay's invocations start theirs, which the
  // consumers join (the trace header travels with the events).
  const relayPerSecond = Math.min(rates.eventsPerSecond, assumptions.streamShards * assumptions.streamPollsPerSecond);
  const traces =
    (assumptions.requestTracing ? sampledShare(rates.operationPerSecond, assumptions) : 0) +
    (assumptions.backgroundTracing ? relayInvocations * sampledShare(relayPerSecond, assumptions) : 0);
  const xray =
    traces *
    (XRAY_USD_PER_MILLION_TRACES_RECORDED +
      assumptions.traceRetrievalsPerTrace * XRAY_USD_PER_MILLION_TRACES_RETRIEVED);

  const apiGateway = API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS;
  const kms = kmsCalls * KMS_USD_PER_MILLION_REQUESTS;
  return {
    apiGateway,
    lambda,
    dynamoDb,
    kms,
    eventBridge,
    eventFunctions,
    logs,
    xray,
    total: apiGateway + lambda + dynamoDb + kms + eventBridge + eventFunctions + logs + xray,
    facts: {
      billedMilliseconds,
      writeUnits,
      indexWriteUnits,
      readUnits,
      kmsCalls,
      events,
      consumerInvocations,
      relayInvocations,
      logBytes,
      traces,
    },
  };
};

/** The share of a function's invocations the default sampling rule records at `perSecond`. */
export const sampledShare = (perSecond: number, assumptions: AwsAssumptions = AWS_ASSUMPTIONS): number =>
  perSecond <= assumptions.samplingReservoirPerSecond
    ? 1
    : (assumptions.samplingReservoirPerSecond +
        assumptions.samplingRate * (perSecond - assumptions.samplingReservoirPerSecond)) /
      perSecond;

/** Bytes per operation, as gigabytes per million operations. */
const perMillionGigabytes = (bytes: number): number => (bytes * 1_000_000) / 1024 ** 3;

const durationUsdPerMillion = (milliseconds: number): number =>
  1_000_000 * LAMBDA_MEMORY_GB * (milliseconds / 1000) * LAMBDA_ARM_USD_PER_GB_SECOND;

/*
 * Log lines as AWS writes them, with ids and figures of realistic length: what CloudWatch Logs ingests per
 * invocation, per API request and per metric published. The function logs nothing else on the way of a request
 * that succeeds (warnings and errors only).
 */
const SAMPLE_REQUEST_ID = '8f5f5a2e-0c3b-4a8c-9e1f-2b6c0d3e4f5a';

/** START, END and REPORT (with its XRAY line when tracing is on), each a log event. */
const platformLogBytes = (billedMs: number, assumptions: AwsAssumptions = AWS_ASSUMPTIONS): number => {
  if (!assumptions.platformLogLines) return 0;
  const lines = [
    `START RequestId: ${SAMPLE_REQUEST_ID} Version: $LATEST\n`,
    `END RequestId: ${SAMPLE_REQUEST_ID}\n`,
    `REPORT RequestId: ${SAMPLE_REQUEST_ID}\tDuration: ${(billedMs - 0.42).toFixed(2)} ms\tBilled Duration: ${billedMs} ms\t` +
      `Memory Size: ${LAMBDA_MEMORY_MB} MB\tMax Memory Used: 112 MB\t\n` +
      (!assumptions.requestTracing
        ? ''
        : 'XRAY TraceId: 1-6759e988-bd862e3fe1be46a994272793\tSegmentId: 53995c3f42cd8ad8\tSampled: true\t\n'),
  ];
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line) + assumptions.logEventOverheadBytes, 0);
};

/** The HTTP API's access log line (`ACCESS_LOG_FIELDS`), one per request. */
const accessLogBytes = (assumptions: AwsAssumptions = AWS_ASSUMPTIONS): number => {
  const sample: Record<string, string> = {
    requestId: 'cF3lVhLbIAMEbXw=',
    requestTime: '1733070000123',
    routeKey: 'POST /v1/sessions/{sessionId}/events',
    status: '201',
    protocol: 'HTTP/1.1',
    responseLength: '612',
    responseLatency: '38',
    integrationLatency: '35',
    integrationStatus: '201',
  };
  const line = JSON.stringify(
    Object.fromEntries(Object.keys(ACCESS_LOG_FIELDS).map((field) => [field, sample[field] ?? '-'])),
  );
  return Buffer.byteLength(line) + assumptions.logEventOverheadBytes;
};

/** One embedded-metric-format line as Powertools writes it, for one counter. */
const metricLogBytes = (assumptions: AwsAssumptions = AWS_ASSUMPTIONS): number => {
  const line = JSON.stringify({
    _aws: {
      Timestamp: 1_733_070_000_123,
      CloudWatchMetrics: [
        {
          Namespace: 'MemoryHub',
          Dimensions: [['service', 'stage']],
          Metrics: [{ Name: 'relay.published', Unit: 'Count' }],
        },
      ],
    },
    service: 'memory-hub',
    stage: 'prod',
    'relay.published': 1,
  });
  return Buffer.byteLength(line) + assumptions.logEventOverheadBytes;
};

const sumValues = (record: Record<string, number> | undefined): number =>
  Object.values(record ?? {}).reduce((sum, value) => sum + value, 0);

/** The average of several runs' engine work, per operation. */
const scaleWork = (works: readonly (EngineWork | undefined)[], requests: number): EngineWork => {
  const per = (pick: (work: EngineWork) => number) =>
    requests === 0 ? 0 : works.reduce((sum, work) => sum + (work ? pick(work) : 0), 0) / requests;
  return {
    requests: per((work) => work.requests),
    readUnits: per((work) => work.readUnits),
    writeUnits: per((work) => work.writeUnits),
    // Absent from reports of a meter that did not split them out yet.
    updateWriteUnits: per((work) => work.updateWriteUnits ?? 0),
    failedConditionUnits: per((work) => work.failedConditionUnits),
    indexWriteUnits: per((work) => work.indexWriteUnits),
    keyStoreRequests: per((work) => work.keyStoreRequests),
    keyStoreReadUnits: per((work) => work.keyStoreReadUnits),
    keyStoreWriteUnits: per((work) => work.keyStoreWriteUnits),
    keys: {
      recordKeysGenerated: per((work) => work.keys.recordKeysGenerated),
      recordKeysDecrypted: per((work) => work.keys.recordKeysDecrypted),
      recordKeyRoundTrips: per((work) => work.keys.recordKeyRoundTrips),
      branchKeyUses: per((work) => work.keys.branchKeyUses),
      branchKeyMisses: per((work) => work.keys.branchKeyMisses),
    },
  };
};

/** The price list as Markdown, for the report. */
export const PRICE_NOTES = [
  `API Gateway HTTP API: $${API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS.toFixed(2)} per million requests (first 300 M/month).`,
  `Lambda arm64: $${LAMBDA_ARM_USD_PER_MILLION_REQUESTS.toFixed(2)} per million requests + $${LAMBDA_ARM_USD_PER_GB_SECOND} per GB-s; ` +
    `${LAMBDA_MEMORY_MB} MB functions, billed per ${LAMBDA_BILLING_INCREMENT_MS} ms.`,
  `DynamoDB on-demand: $${DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS} per million write request units, ` +
    `$${DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS} per million read request units (prices since 2024-11-01); the stream's ` +
    'reads are free to a Lambda trigger.',
  `KMS: $0.03 per 10,000 requests ($${KMS_USD_PER_MILLION_REQUESTS.toFixed(2)} per million).`,
  `EventBridge: $${EVENTBRIDGE_USD_PER_MILLION_EVENTS.toFixed(2)} per million custom events published (each 64 KB chunk one event); ` +
    `archive $${EVENTBRIDGE_ARCHIVE_USD_PER_GB.toFixed(2)} per GB of events archived; delivery to rule targets is not charged.`,
  `CloudWatch Logs: $${CLOUDWATCH_LOGS_USD_PER_GB_INGESTED.toFixed(2)} per GB ingested (Standard class).`,
  `X-Ray: $${XRAY_USD_PER_MILLION_TRACES_RECORDED.toFixed(2)} per million traces recorded, ` +
    `$${XRAY_USD_PER_MILLION_TRACES_RETRIEVED.toFixed(2)} per million retrieved.`,
  'All us-east-1 list prices, free tiers ignored. Not included: storage (items, archive, logs), data transfer out to ' +
    'callers, CloudWatch metrics and alarms, and SSM Parameter Store (standard parameters: no charge for API calls at ' +
    'standard throughput, so the configuration polls cost nothing).',
];

/** How the corrected model turns the run's measurements into an AWS bill, for the report. */
export const CORRECTED_MODEL_NOTES = [
  "Today's model prices the work inside the request as the local server counted it, with the local handler p50 as the Lambda " +
    'duration. The corrected model prices everything the request causes in AWS, from what the local server saw on its way ' +
    'to the embedded engine and what its relay and consumers did for each event the request committed.',
  'DynamoDB: the capacity units the engine reported (`ReturnConsumedCapacity`), writes refused by their condition (billed, ' +
    'not reported), and index writes: the engine maintains its indexes but leaves their writes out of its consumed capacity, ' +
    "so they are computed from the table's indexes (lambdas/adapters/dynamodb/memory-table.ts) and the attributes of each " +
    "item written, updated or deleted, by DynamoDB's rules (an item entering or leaving the outbox index is a write per KB " +
    'of its entry: keys, the projected event and 100 bytes).',
  "Events: the committed revision goes to the table's stream (free to its Lambda trigger), its outbox marker item put just before it; the relay is invoked per " +
    `poll (${AWS_ASSUMPTIONS.streamPollsPerSecond} a second on ${AWS_ASSUMPTIONS.streamShards} shard), publishes with PutEvents ` +
    `(${AWS_ASSUMPTIONS.putEventsEntriesPerCall} entries a call) and deletes the marker item; each consumer whose rule ` +
    "matches the event's kind is invoked once (from lambdas/generated/deployment.json), with the reads and writes it made " +
    "locally, plus the head projection's read of the head item, which in AWS its own memo cannot spare, and the relay's read of the marker " +
    '(the stream shows it the revision, which names its marker; locally the relay is handed the entry).',
  `Lambda duration, per function: the handler's CPU (its time one request at a time, less the time a storage request was in ` +
    `flight) stretched ${AWS_ASSUMPTIONS.cpuStretch.toFixed(2)}× (a ${LAMBDA_MEMORY_MB} MB function gets ${LAMBDA_MEMORY_MB}/1,769 of a vCPU), plus ` +
    `${AWS_ASSUMPTIONS.dynamoDbRoundTripMs} ms per DynamoDB round trip in sequence, ${AWS_ASSUMPTIONS.kmsRoundTripMs} ms per KMS round trip and ` +
    `${AWS_ASSUMPTIONS.putEventsRoundTripMs} ms per PutEvents call (typical in-region figures, assumed, not measured), billed up to the next ms. ` +
    'Init is not included (cold starts are rare at a steady rate; see the bundle section).',
  'KMS: each function has caches of its own in AWS, so the local server (one process, one cache) misses less than AWS ' +
    'would. The meter replays every ciphertext written and read through one simulated function per operation (and one for ' +
    'the consumers of its events), reading the keyring from the message header: with a data key per record, a write is a ' +
    'GenerateDataKey and a read its content cache does not hold a Decrypt; with branch keys, a function misses each branch ' +
    `key once per cache period (${AWS_ASSUMPTIONS.branchKeyCacheSeconds} s) per scope it serves (every scope of the workload, in a run this ` +
    "long), each miss a key store read and a KMS Decrypt. Creating a scope's branch key (once per scope, ever) is left out.",
  (AWS_ASSUMPTIONS.platformLogLines
    ? "CloudWatch Logs: per invocation Lambda's START, END and REPORT lines (with the XRAY line when tracing is on), the HTTP "
    : "CloudWatch Logs: Lambda's START, END and REPORT lines are not written (JSON log format, system log level WARN); the HTTP ") +
    "API's access log line per request, and an embedded-metric-format line per invocation that counted a metric, each with " +
    `CloudWatch's ${AWS_ASSUMPTIONS.logEventOverheadBytes} bytes per event; nothing else is logged on the way of a request that succeeds.`,
  (AWS_ASSUMPTIONS.requestTracing
    ? 'X-Ray: active tracing on every function, '
    : "X-Ray: the request functions pass their caller's sampling through (the load sends no trace header, so none is " +
      'recorded); the relay and the consumers trace actively, ') +
    `Lambda's sampling per function (the first invocation each second, ${AWS_ASSUMPTIONS.samplingRate * 100}% of the rest) at ` +
    "the function's rate in the workload; the consumers join the relay's trace. Each recorded trace is counted as retrieved once.",
];
