import { createSocket, type Socket } from 'node:dgram';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBranchKeyStoreTable } from '../../lambdas/adapters/crypto/branch-key-store-table.ts';
import type { ApiEvent, ApiResult } from '../../lambdas/http/api-event.ts';
import { apiEvent } from '../support/api-events.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { type KmsStandIn, startKmsStandIn } from '../support/kms-stand-in.ts';

/*
 * The AWS composition as a Lambda function runs it — Powertools logger and metrics, DynamoDB on the embedded
 * engine and KMS on its stand-in through the SDK's endpoint variables, a stand-in X-Ray daemon listening on UDP
 * (Lambda's active tracing records the invocation; the function itself sends no segment) — with the environment
 * asking Powertools for everything it can put in a log or a
 * trace. What reaches stdout, stderr and the daemon must carry no content, namespace, tenant or principal.
 */

const KEY_ARN = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-0000000trace';
const TENANT = 'tenant-7c1e9d';
const PRINCIPAL = 'principal-4b2f81';
/** Writes once KMS is throttled: a principal whose branch key is not in memory yet, so KMS is asked. */
const SECOND_PRINCIPAL = 'principal-9d03e6';
const CONTENT = 'content-e3a5-do-not-leak';

const caller = { sub: PRINCIPAL, tenant: TENANT };

const contextOf = (awsRequestId: string) =>
  ({ awsRequestId, functionName: 'memory-hub-test-createNote', memoryLimitInMB: '512' }) as unknown as Context;

describe('AWS composition: what logs, metrics and traces carry', () => {
  let table: EmbeddedTable;
  let kms: KmsStandIn;
  let daemon: Socket;
  const segments: string[] = [];
  let createNote: (event: ApiEvent, context: Context) => Promise<ApiResult>;
  let getNote: (event: ApiEvent, context: Context) => Promise<ApiResult>;
  const saved = { ...process.env };

  beforeAll(async () => {
    // Over loopback HTTP: the composition reaches the engine through the SDK's endpoint variable.
    table = await startEmbeddedTable('http');
    await ensureBranchKeyStoreTable(table.client, `${table.tableName}-branch-keys`);
    kms = await startKmsStandIn([KEY_ARN]);
    daemon = createSocket('udp4');
    daemon.on('message', (message) => segments.push(message.toString()));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    Object.assign(process.env, {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_LAMBDA_FUNCTION_NAME: 'memory-hub-test-createNote',
      _HANDLER: 'index.createNote',
      _X_AMZN_TRACE_ID: 'Root=1-6759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_DYNAMODB: table.engine.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.url,
      MEMORY_HUB_STAGE: 'test',
      MEMORY_HUB_TABLE_NAME: table.tableName,
      MEMORY_HUB_KEY_ARN: KEY_ARN,
      MEMORY_HUB_BRANCH_KEY_TABLE_NAME: `${table.tableName}-branch-keys`,
      MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-test-branch-keys',
      MEMORY_HUB_CONFIG_PARAMETER: '/memory-hub/test/config',
      // An operator asking for everything: the code decides what may be logged and traced, not these.
      POWERTOOLS_LOGGER_LOG_EVENT: 'true',
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'true',
      POWERTOOLS_TRACER_CAPTURE_ERROR: 'true',
    });
    // Imported only now, with the Lambda environment in place.
    const { awsApplication } = await import('../../lambdas/composition/aws-application.ts');
    const { notesModule } = await import('../../lambdas/capabilities/notes/notes.module.ts');
    const parameters = { readParameter: async () => '{}' };
    const notes = await awsApplication(process.env, [notesModule], { parameters });
    createNote = notes.handler('createNote');
    getNote = notes.handler('getNote');
  });

  afterAll(async () => {
    process.env = saved;
    daemon?.close();
    await kms?.close();
    await table?.close();
  });

  /** Runs the invocations with stdout and stderr captured, and collects any segment that reaches the daemon. */
  const captured = async (invocations: () => Promise<void>) => {
    const lines: string[] = [];
    const keep = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(keep);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(keep);
    const before = segments.length;
    try {
      await invocations();
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { output: lines.join(''), traces: segments.slice(before).join('\n') };
  };

  it('logs and counts a write, a read and a failed write without their content or their caller, and sends no segment', async () => {
    // Act
    let created: ApiResult | undefined;
    let read: ApiResult | undefined;
    let refused: ApiResult | undefined;
    const { output, traces } = await captured(async () => {
      created = await createNote(
        apiEvent('POST /v1/notes', { body: JSON.stringify({ text: CONTENT, tags: ['trace-tag'] }) }, caller),
        contextOf('invocation-1'),
      );
      const { id } = JSON.parse(created.body as string) as { id: string };
      read = await getNote(
        apiEvent('GET /v1/notes/{id}', { pathParameters: { id } }, caller),
        contextOf('invocation-2'),
      );
      kms.throttle(true);
      try {
        refused = await createNote(
          apiEvent(
            'POST /v1/notes',
            { body: JSON.stringify({ text: `${CONTENT}-again` }) },
            { ...caller, sub: SECOND_PRINCIPAL },
          ),
          contextOf('invocation-3'),
        );
      } finally {
        kms.throttle(false);
      }
    });

    // Assess: the service worked, and its failure was logged, counted and traced
    expect([created?.statusCode, read?.statusCode, refused?.statusCode]).toEqual([201, 200, 503]);
    expect(JSON.parse(read?.body as string).text).toBe(CONTENT);
    const records = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'request failed',
        status: 503,
        error: 'service.unavailable',
        function_request_id: 'invocation-3',
        service: 'memory-hub',
        stage: 'test',
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        _aws: expect.objectContaining({
          CloudWatchMetrics: [
            {
              Namespace: 'MemoryHub',
              Dimensions: [['service', 'stage']],
              Metrics: [{ Name: 'http.server_error', Unit: 'Count' }],
            },
          ],
        }),
        'http.server_error': 1,
        service: 'memory-hub',
        stage: 'test',
      }),
    );
    // Only the failed write counted something: the others publish no metrics and warn of none
    expect(records.filter((record) => '_aws' in record)).toHaveLength(1);
    expect(output).not.toContain('No application metrics');
    // No X-Ray SDK in the function: no subsegment of an SDK call, nor the error message of one, leaves it
    expect(traces).toBe('');

    // Assess: none of it names what was written, or by whom
    for (const secret of [CONTENT, 'trace-tag', TENANT, PRINCIPAL, SECOND_PRINCIPAL]) {
      expect(output).not.toContain(secret);
      expect(traces).not.toContain(secret);
    }
  });
});
