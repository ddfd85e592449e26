import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit, Metrics as PowertoolsMetricsClient } from '@aws-lambda-powertools/metrics';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Log } from '../../kernel/observability/log.port.ts';
import type { MetricName, Metrics } from '../../kernel/observability/metrics.port.ts';

const SERVICE_NAME = 'memory-hub';
const METRICS_NAMESPACE = 'MemoryHub';

/** A Lambda handler as the runtime calls it. */
export type LambdaHandler<Event, Result> = (event: Event, context: Context) => Promise<Result>;

/** The function's logger and metrics (AWS Lambda Powertools), behind the kernel's ports. */
export interface LambdaObservability {
  readonly log: Log;
  readonly metrics: Metrics;
  /** The handler with its context on every log line and its metrics flushed. */
  instrument<Event, Result>(handler: LambdaHandler<Event, Result>): LambdaHandler<Event, Result>;
}

/**
 * Powertools for one function of one stage. Metrics have fixed dimensions only (`service`, `stage`), and the
 * invocation's event is never logged, whatever `POWERTOOLS_LOGGER_LOG_EVENT` says.
 *
 * Traces come from Lambda's active tracing alone, not from an X-Ray SDK in the function: the invocation's
 * segment (init, invocation, overhead, errors) is recorded by Lambda, and every AWS SDK call carries the trace
 * header (the SDK's recursion-detection middleware), so the bus and the consumers it invokes join the trace.
 * The Powertools tracer would add a subsegment per SDK call, at 125 KB of bundle per function and the SDK's
 * error messages on each subsegment; the figures behind that choice are in BENCHMARKS.md (Lambda bundles).
 */
export const lambdaObservability = (stage: string): LambdaObservability => {
  const logger = new Logger({ serviceName: SERVICE_NAME, persistentKeys: { stage } });
  const metrics = new PowertoolsMetricsClient({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { stage },
    logger,
  });
  const middlewares = [injectLambdaContext(logger, { logEvent: false }), flushMetrics(metrics)];
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
