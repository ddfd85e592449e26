import {
  getLocalCryptographicMaterialsCache,
  KmsKeyringNode,
  NodeCachingMaterialsManager,
} from '@aws-crypto/client-node';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { z } from 'zod';
import { assembleBackend, type Backend } from '../core/backend.ts';
import { systemClock } from '../core/time/clock.ts';
import { createUlidGenerator } from '../core/time/ids.ts';
import { AWS_CLIENT_DEFAULTS } from './aws-client-defaults.ts';
import { SsmConfigProvider, type SsmParameterClient } from './config/ssm-config-provider.ts';
import { CachingContentCipher } from './crypto/caching-content-cipher.ts';
import { EncryptionSdkCipher } from './crypto/encryption-sdk-cipher.ts';
import { dynamoDbPorts } from './dynamodb/dynamodb-ports.ts';
import { EventBridgePublisher } from './events/eventbridge-publisher.ts';
import { EmfMetrics } from './observability/emf-metrics.ts';
import { StepFunctionsStarter } from './workflows/step-functions-starter.ts';

/** What a Lambda function is told by its environment; parsed once at init, failing fast when incomplete. */
export const AwsEnvironment = z
  .object({
    MEMORY_HUB_STAGE: z.string().regex(/^[a-z0-9-]{1,32}$/),
    MEMORY_HUB_TABLE_NAME: z.string().min(3),
    MEMORY_HUB_KEY_ARN: z.string().startsWith('arn:'),
    /** The SSM parameter holding the configuration document, `/memory-hub/{stage}/config`. */
    MEMORY_HUB_CONFIG_PARAMETER: z.string().regex(/^\/[A-Za-z0-9_./-]{1,1010}$/),
    /** Set for the functions that publish events (the outbox relay). */
    MEMORY_HUB_EVENT_BUS_NAME: z.string().min(1).optional(),
    /** `{ "<workflow>": "<state machine ARN>" }`, set for the functions that start workflows. */
    MEMORY_HUB_STATE_MACHINES: z
      .string()
      .optional()
      .transform((value, context): Record<string, string> => {
        if (value === undefined) return {};
        const parsed = z.record(z.string(), z.string().startsWith('arn:')).safeParse(safeJson(value));
        if (parsed.success) return parsed.data;
        context.addIssue({ code: 'custom', message: 'must be a JSON object of workflow names to state machine ARNs' });
        return z.NEVER;
      }),
  })
  .refine(
    // A function of one stage must never run on another stage's configuration.
    (environment) => environment.MEMORY_HUB_CONFIG_PARAMETER.startsWith(`/memory-hub/${environment.MEMORY_HUB_STAGE}/`),
    { path: ['MEMORY_HUB_CONFIG_PARAMETER'], message: 'must be under /memory-hub/{MEMORY_HUB_STAGE}/' },
  );
export type AwsEnvironment = z.infer<typeof AwsEnvironment>;

export interface AwsBackendOptions {
  /** Reads the configuration parameter; an `SSMClient` unless a test passes its own. */
  readonly ssm?: SsmParameterClient;
}

/**
 * AWS mode: DynamoDB, and the Encryption SDK over a KMS keyring on the tenant's customer-managed key. A
 * small materials cache lets a warm function re-read the same record without another KMS call. The
 * configuration is read from SSM before anything else, so a missing or invalid parameter fails the init.
 */
export const createAwsBackend = async (
  environment: AwsEnvironment,
  options: AwsBackendOptions = {},
): Promise<Backend> => {
  const metrics = new EmfMetrics({ namespace: 'MemoryHub', stage: environment.MEMORY_HUB_STAGE });
  const config = await SsmConfigProvider.load({
    parameterName: environment.MEMORY_HUB_CONFIG_PARAMETER,
    client: options.ssm ?? new SSMClient({ ...AWS_CLIENT_DEFAULTS }),
    metrics,
  });
  const client = new DynamoDBClient({ ...AWS_CLIENT_DEFAULTS });
  const keys = new NodeCachingMaterialsManager({
    backingMaterials: new KmsKeyringNode({ generatorKeyId: environment.MEMORY_HUB_KEY_ARN }),
    cache: getLocalCryptographicMaterialsCache(1000),
    maxAge: 5 * 60 * 1000,
    maxMessagesEncrypted: 1,
  });
  const cipher = new CachingContentCipher({ inner: new EncryptionSdkCipher({ keys, metrics }) });
  const clock = systemClock;
  const tableName = environment.MEMORY_HUB_TABLE_NAME;
  return assembleBackend({
    config,
    metrics,
    clock,
    ids: createUlidGenerator(),
    ...dynamoDbPorts({ client, tableName, cipher, clock, metrics, config }),
    // Consumers run as their own functions behind EventBridge rules; the relay only publishes.
    publisher: () =>
      environment.MEMORY_HUB_EVENT_BUS_NAME
        ? new EventBridgePublisher({
            client: new EventBridgeClient({ ...AWS_CLIENT_DEFAULTS }),
            busName: environment.MEMORY_HUB_EVENT_BUS_NAME,
          })
        : // A function not wired to the bus publishes nothing; its events stay in the outbox for the relay.
          { publish: async (events) => ({ failed: events }) },
    workflowStarter: () =>
      new StepFunctionsStarter({
        client: new SFNClient({ ...AWS_CLIENT_DEFAULTS }),
        stateMachines: environment.MEMORY_HUB_STATE_MACHINES,
      }),
  });
};

const safeJson = (value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};
