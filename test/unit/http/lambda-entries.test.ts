import { describe, expect, it } from 'vitest';
import { deploymentDocument } from '../../../lambdas/app/documents.ts';
import { API_OPERATIONS, EVENT_BACKBONE_ENTRY } from '../../../lambdas/app/service-tables.ts';
import { TEST_AWS_ENVIRONMENT } from '../../support/aws-environment.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';

describe('Lambda entry points', () => {
  it('export every handler the route table names, from the entry it names', async () => {
    // The AWS backend constructs clients at init and reads its configuration only at the first request: no network is touched.
    Object.assign(process.env, TEST_AWS_ENVIRONMENT);
    for (const operation of API_OPERATIONS) {
      const entry = (await import(`../../../${operation.lambda.entry}`)) as Record<string, unknown>;
      expect({ entry: operation.lambda.entry, handler: typeof entry[operation.lambda.handler] }).toEqual({
        entry: operation.lambda.entry,
        handler: 'function',
      });
    }
  });

  it('export every consumer and backbone handler the deployment names, from the entry it names', async () => {
    for (const { entry, handler } of [
      ...deploymentDocument().consumers,
      { entry: EVENT_BACKBONE_ENTRY, handler: 'relayOutboxStream' },
      { entry: EVENT_BACKBONE_ENTRY, handler: 'sweepOutbox' },
      { entry: 'lambdas/app/workflows.lambda.ts', handler: 'runWorkflowStep' },
    ]) {
      const module = (await import(`../../../${entry}`)) as Record<string, unknown>;
      expect({ entry, handler: typeof module[handler] }).toEqual({ entry, handler: 'function' });
    }
  });

  it('refuse to initialise without their environment', async () => {
    const { AwsEnvironment } = await import('../../../lambdas/composition/aws-application.ts');
    expect(AwsEnvironment.safeParse({}).success).toBe(false);
    expect(
      AwsEnvironment.safeParse({
        MEMORY_HUB_STAGE: 'dev',
        MEMORY_HUB_TABLE_NAME: 'tbl',
        MEMORY_HUB_KEY_ARN: 'not-an-arn',
      }).success,
    ).toBe(false);
  });

  it('are the same handlers the local server dispatches to', () => {
    const { handlers } = inMemoryBackend().backend;
    for (const operation of API_OPERATIONS) expect(typeof handlers[operation.lambda.handler]).toBe('function');
  });
});
