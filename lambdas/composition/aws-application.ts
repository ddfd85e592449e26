import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import * as z from 'zod';
import { AWS_CLIENT_DEFAULTS } from '../adapters/aws-client-defaults.ts';
import { SsmConfigProvider, type SsmParameterClient } from '../adapters/config/ssm-config-provider.ts';
import { CachingContentCipher } from '../adapters/crypto/caching-content-cipher.ts';
import { EncryptionSdkCipher } from '../adapters/crypto/encryption-sdk-cipher.ts';
import { kmsKeys } from '../adapters/crypto/kms-keys.ts';
import { dynamoDbPorts } from '../adapters/dynamodb/dynamodb-ports.ts';
import {
  type LambdaHandler,
  type LambdaObservability,
  lambdaObservability,
} from '../adapters/observability/powertools.ts';
import deploymentJson from '../generated/deployment.json' with { type: 'json' };
import type { ApiHandler } from '../http/http-operation.ts';
import { composeConfiguration } from '../kernel/config/compose-config.ts';
import type { ConfigProvider } from '../kernel/config/config-provider.port.ts';
import { NotFoundError } from '../kernel/errors/domain-error.ts';
import type { EventPublisher } from '../kernel/events/event-publisher.port.ts';
import { RecordKinds } from '../kernel/namespaces/record-kind.ts';
import { systemClock } from '../kernel/time/clock.ts';
import { createUlidGenerator } from '../kernel/time/ids.ts';
import type { WorkflowStarter } from '../kernel/workflows/workflow-service.ts';
import type { StepInput } from '../kernel/workflows/workflow-step-executor.ts';
import {
  consumerHandler,
  relayOutboxStreamHandler,
  runWorkflowStepHandler,
  sweepOutboxHandler,
} from './aws-event-handlers.ts';
import type { AnyCapabilityModule } from './capability-module.ts';
import { type ComposedService, composeService } from './compose-service.ts';
import { DeploymentDocument } from './deployment-document.ts';
import { recordKindsOf, serviceConfigSectionsOf, withRequiredModules } from './module-tables.ts';

/** What a Lambda function is told by its environment; parsed once at init, failing fast when incomplete. */
export const AwsEnvironment = z
  .object({
    MEMORY_HUB_STAGE: z.string().regex(/^[a-z0-9-]{1,32}$/),
    MEMORY_HUB_TABLE_NAME: z.string().min(3),
    MEMORY_HUB_KEY_ARN: z.string().startsWith('arn:'),
    /** The SSM parameter holding the configuration document, `/memory-hub/{stage}/config`. */
    MEMORY_HUB_CONFIG_PARAMETER: z.string().regex(/^\/[A-Za-z0-9_./-]{1,1010}$/),
    /** Set for the functions that publish events (the outbox relay, the workflow steps). */
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

/** Makes an AWS SDK client's calls part of the function's trace. */
export type Traced = LambdaObservability['traced'];

/** The AWS adapters only some functions need, passed by their entries so the others' bundles never carry them. */
export interface AwsApplicationOptions {
  /** The bus the relay and the workflow steps publish to (EventBridge); without it events stay in the outbox. */
  readonly publisher?: (environment: AwsEnvironment, traced: Traced) => EventPublisher;
  /** Starts workflow executions (Step Functions); without it no workflow can be started from this function. */
  readonly workflowStarter?: (environment: AwsEnvironment, traced: Traced) => WorkflowStarter;
  /** Reads the configuration parameter; an `SSMClient` unless a test passes its own. */
  readonly ssm?: SsmParameterClient;
}

/** One function's part of the service, and the Lambda handlers made from it (traced, logged, metrics flushed). */
export interface AwsApplication {
  readonly service: ComposedService;
  /** The API handler of one of the modules' operations, by export name. */
  handler(name: string): ApiHandler;
  /** An EventBridge rule's target: hands each event to one consumer, by name. */
  consumerHandler(name: string): LambdaHandler<EventBridgeEvent<string, unknown>, { outcome: string }>;
  readonly relayOutboxStream: LambdaHandler<DynamoDBStreamEvent, DynamoDBBatchResponse>;
  readonly sweepOutbox: LambdaHandler<unknown, { published: number; failed: number }>;
  readonly runWorkflowStep: LambdaHandler<unknown, StepInput>;
}

const deployment = DeploymentDocument.parse(deploymentJson);

/**
 * AWS mode, for one function: the kernel and the modules it serves (with those they require), on DynamoDB
 * and the Encryption SDK over a KMS keyring on the tenant's customer-managed key. The deployment's other
 * record kinds and settings come from the generated deployment document, so the service's own jobs meet every
 * kind and the configuration is checked whole. The configuration is read from SSM before anything else, so a
 * missing or invalid parameter fails the init.
 */
export const awsApplication = async (
  variables: Readonly<Record<string, string | undefined>>,
  modules: readonly AnyCapabilityModule[],
  options: AwsApplicationOptions = {},
): Promise<AwsApplication> => {
  const environment = AwsEnvironment.parse(variables);
  const served = withRequiredModules(modules);
  const { log, metrics, traced, instrument } = lambdaObservability(environment.MEMORY_HUB_STAGE);
  const configuration = composeConfiguration(serviceConfigSectionsOf(served), {
    foreign: deployment.config,
  });
  const config: ConfigProvider = await SsmConfigProvider.load({
    parameterName: environment.MEMORY_HUB_CONFIG_PARAMETER,
    client: options.ssm ?? traced(new SSMClient({ ...AWS_CLIENT_DEFAULTS })),
    metrics,
    log,
    configuration,
  });
  const client = traced(new DynamoDBClient({ ...AWS_CLIENT_DEFAULTS }));
  const cipher = new CachingContentCipher({
    inner: new EncryptionSdkCipher({
      ...kmsKeys({ keyArn: environment.MEMORY_HUB_KEY_ARN, client: traced }),
      metrics,
    }),
  });
  const clock = systemClock;
  const service = composeService(
    {
      config,
      metrics,
      log,
      clock,
      ids: createUlidGenerator(),
      kinds: RecordKinds.described(deployment.recordKinds, recordKindsOf(served)),
      ...dynamoDbPorts({ client, tableName: environment.MEMORY_HUB_TABLE_NAME, cipher, clock, metrics, config }),
      // Consumers run as their own functions behind EventBridge rules; the relay only publishes.
      publisher: () =>
        options.publisher && environment.MEMORY_HUB_EVENT_BUS_NAME
          ? options.publisher(environment, traced)
          : // A function not wired to the bus publishes nothing; its events stay in the outbox for the relay.
            { publish: async (events) => ({ failed: events }) },
      workflowStarter: () =>
        options.workflowStarter?.(environment, traced) ?? {
          start: async () => {
            throw new NotFoundError();
          },
        },
      workflowNames: deployment.workflows,
    },
    served,
  );
  return {
    service,
    handler: (name) => {
      const handler = service.handlers[name];
      if (!handler) throw new Error(`No module of this function exports the handler ${name}`);
      return instrument(handler);
    },
    consumerHandler: (name) => {
      const consumer = service.system.consumers[name];
      if (!consumer) throw new Error(`No module of this function has the consumer ${name}`);
      return instrument(consumerHandler(consumer));
    },
    relayOutboxStream: instrument(relayOutboxStreamHandler(service.system.relay)),
    sweepOutbox: instrument(sweepOutboxHandler(service.system.relay)),
    runWorkflowStep: instrument(runWorkflowStepHandler(service.system.workflowSteps)),
  };
};

const safeJson = (value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};
