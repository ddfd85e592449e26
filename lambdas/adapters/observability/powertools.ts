import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit, Metrics as PowertoolsMetricsClient } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { TracerOptions } from '@aws-lambda-powertools/tracer/types';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Log } from '../../kernel/observability/log.port.ts';
import type { MetricName, Metrics } from '../../kernel/observability/metrics.port.ts';

const SERVICE_NAME = 'memory-hub';
const METRICS_NAMESPACE = 'MemoryHub';

/** A Lambda handler as the runtime calls it. */
export type LambdaHandler<Event, Result> = (event: Event, context: Context) => Promise<Result>;

/** The function's logger, metrics and tracer (AWS Lambda Powertools), behind the kernel's ports. */
export interface LambdaObservability {
  readonly log: Log;
  readonly metrics: Metrics;
  /** An AWS SDK client whose calls appear in the trace: operation, table or queue, status, never keys or payloads. */
  traced<Client>(client: Client): Client;
  /** The handler with the invocation traced, its context on every log line and its metrics flushed. */
  instrument<Event, Result>(handler: LambdaHandler<Event, Result>): LambdaHandler<Event, Result>;
}

/**
 * What a trace may carry, fixed in code rather than left to the environment: neither a handler's response
 * nor the message and stack of the error it failed with, either of which may quote stored content; the
 * segment is still flagged as an error. (An AWS SDK call's subsegment keeps the service's own error, whose
 * messages name no key or value.) Everything else (whether tracing is on, the service name) follows the
 * environment.
 */
const TRACE_CONTENT_POLICY: NonNullable<TracerOptions['customConfigService']> = {
  get: () => '',
  getServiceName: () => '',
  getXrayTraceId: () => undefined,
  getXrayTraceSampled: () => false,
  isDevMode: () => false,
  isValueTrue: (value) => value.toLowerCase() === 'true',
  getAwsExecutionEnv: () => '',
  getCaptureHTTPsRequests: () => '',
  getSamLocal: () => '',
  getTracingEnabled: () => '',
  getTracingCaptureResponse: () => 'false',
  getTracingCaptureError: () => 'false',
};

/**
 * Powertools for one function of one stage. Metrics have fixed dimensions only (`service`, `stage`); the
 * invocation's event is never logged, whatever `POWERTOOLS_LOGGER_LOG_EVENT` says; and outside Lambda the
 * tracer is off by itself.
 */
export const lambdaObservability = (stage: string): LambdaObservability => {
  const logger = new Logger({ serviceName: SERVICE_NAME, persistentKeys: { stage } });
  const metrics = new PowertoolsMetricsClient({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { stage },
    logger,
  });
  const tracer = new Tracer({
    serviceName: SERVICE_NAME,
    // The SDK clients are traced one by one (`traced`); patching every HTTPS request would trace them twice.
    captureHTTPsRequests: false,
    customConfigService: TRACE_CONTENT_POLICY,
  });
  const middlewares = [
    captureLambdaHandler(tracer, { captureResponse: false }),
    injectLambdaContext(logger, { logEvent: false }),
    flushMetrics(metrics),
  ];
  return {
    log: {
      warn: (message, fields) => logger.warn(message, { ...fields }),
      error: (message, fields) => logger.error(message, { ...fields }),
    },
    metrics: {
      count: (name: MetricName, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
      // DynamoDB and KMS publish their own per-table and per-key metrics; a metric per call would only add cost.
      storageRequest: () => undefined,
      keyOperation: () => undefined,
    },
    traced: (client) => tracer.captureAWSv3Client(client),
    instrument: <Event, Result>(handler: LambdaHandler<Event, Result>) =>
      middy<Event, Result, Error, Context>(handler).use(middlewares) as unknown as LambdaHandler<Event, Result>,
  };
};

/**
 * Publishes what the invocation (and the init before it) counted, when it counted anything: most
 * invocations count nothing, and Powertools' own `logMetrics` would log a warning for each of those.
 */
const flushMetrics = (metrics: PowertoolsMetricsClient): MiddlewareObj => {
  const flush = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
};
