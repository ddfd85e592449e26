import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaObservability } from '../../../lambdas/adapters/observability/powertools.ts';
import { SERVICE_FUNCTION_DEFAULTS } from '../../../lib/constructs/service-function.ts';

const CONTEXT = {
  functionName: 'memory-hub-test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:memory-hub-test',
  memoryLimitInMB: '512',
  awsRequestId: '8f5f5a2e-0c3b-4a8c-9e1f-2b6c0d3e4f5a',
  logGroupName: '/aws/lambda/memory-hub-test',
  logStreamName: 'stream',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 1000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * The functions are deployed with Lambda's JSON log format, under which Lambda wraps whatever goes through the
 * global `console` in an envelope of its own: an embedded-metric-format line wrapped so is no metric any more.
 * Powertools must therefore write its lines to the output streams itself, each a whole JSON object.
 */
describe('Adapter: Powertools observability under the JSON log format', () => {
  it('is what the functions are deployed with', () => {
    expect(SERVICE_FUNCTION_DEFAULTS.loggingFormat).toBe('JSON');
    // Metric lines carry no `level`: Lambda takes them for INFO, so the application level must let INFO through.
    expect(SERVICE_FUNCTION_DEFAULTS.applicationLogLevel).toBe('INFO');
  });

  it('writes metrics and warnings to stdout and stderr as whole JSON objects, never through the global console', async () => {
    // Prepare
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    const globalConsole = ['log', 'info', 'warn', 'error', 'debug'].map((method) =>
      vi.spyOn(console, method as 'log').mockImplementation(() => undefined),
    );
    const observability = lambdaObservability('test');
    const handler = observability.instrument(async () => {
      observability.metrics.count('relay.published', 2);
      observability.log.warn('relay.publish_slow', { count: 2 });
      return 'done';
    });

    // Act
    await handler({}, CONTEXT);

    // Assess
    for (const spy of globalConsole) expect(spy).not.toHaveBeenCalled();
    const lines = written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const metric = lines.find((line) => line._aws !== undefined);
    expect(metric?._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'relay.published', Unit: 'Count' }]);
    expect(metric?.['relay.published']).toBe(2);
    expect(metric?.level).toBeUndefined();
    expect(lines.find((line) => line.message === 'relay.publish_slow')?.level).toBe('WARN');
  });
});
