import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import * as z from 'zod';
import { AWS_CLIENT_DEFAULTS } from '../adapters/aws-client-defaults.ts';
import type { ParameterReader } from '../adapters/config/parameter-reader.ts';
import { parametersExtensionClient } from '../adapters/config/parameters-extension-client.ts';
import { SsmConfigProvider } from '../adapters/config/ssm-config-provider.ts';
import {
  BRANCH_KEY_CACHE_SECONDS,
  contentCipherOver,
  HierarchicalKeys,
  perRecordKmsKeyring,
  uncachedContentCipherOver,
} from '../adapters/crypto/hierarchical-keys.ts';
import { DynamoDbClientQuotaLedger } from '../adapters/dynamodb/dynamodb-client-quota-ledger.ts';
import { dynamoDbPorts } from '../adapters/dynamodb/dynamodb-ports.ts';
import { MemoryTableClient } from '../adapters/dynamodb/memory-table-client.ts';
import { type LambdaHandler, lambdaObservability } from '../adapters/observability/powertools.ts';
import deploymentJson from '../generated/deployment.json' with { type: 'json' };
import type { ApiHandler } from '../http/http-operation.ts';
import { composeConfiguration } from '../kernel/config/compose-config.ts';
import type { ConfigProvider } from '../kernel/config/config-provider.port.ts';
import { NotFoundError } from '../kernel/errors/domain-error.ts';
import type { EventPublisher } from '../kernel/events/event-publisher.port.ts';
import { RecordKinds } from '../kernel/namespaces/record-kind.ts';
import type { Embedder } from '../kernel/search/embedder.port.ts';
import type { SearchIndex } from '../kernel/search/search-index.port.ts';
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
    /** The branch key store's table (one branch key per scope, wrapped by the key above). */
    MEMORY_HUB_BRANCH_KEY_TABLE_NAME: z.string().min(3),
    /** The key store's logical name, bound into every branch key's encryption context. */
    MEMORY_HUB_BRANCH_KEY_STORE_NAME: z.string().regex(/^[A-Za-z0-9_.-]{1,255}$/),
    /** Seconds a branch key is used from memory before KMS unwraps it again (BRANCH_KEY_CACHE_SECONDS.default). */
    MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS: z
      .string()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .pipe(z.number().int().min(BRANCH_KEY_CACHE_SECONDS.min).max(BRANCH_KEY_CACHE_SECONDS.max))
      .optional(),
    /** The SSM parameter holding the operator's configuration overrides, `/memory-hub/{stage}/config`. */
    MEMORY_HUB_CONFIG_PARAMETER: z.string().regex(/^\/[A-Za-z0-9_./-]{1,1010}$/),
    /** Set for the functions that publish events (the outbox relay, the workflow steps). */
    MEMORY_HUB_EVENT_BUS_NAME: z.string().min(1).optional(),
    /** The Bedrock model that embeds text for the semantic strategy; without it the model-free default. */
    MEMORY_HUB_EMBEDDING_MODEL_ID: z
      .string()
      .regex(/^[a-z0-9.-]{1,80}(:\d+)?$/)
      .optional(),
    /** The dimensions of that model's vectors (its default when unset). */
    MEMORY_HUB_EMBEDDING_DIMENSIONS: z
      .string()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .optional(),
    /** The OpenSearch Serverless collection's endpoint, set for the retrieval functions when the stack has one. */
    MEMORY_HUB_SEARCH_ENDPOINT: z.url({ protocol: /^https$/ }).optional(),
    /** The deployment's index in that collection. */
    MEMORY_HUB_SEARCH_INDEX: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,254}$/)
      .optional(),
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

/** The AWS adapters only some functions need, passed by their entries so the others' bundles never carry them. */
export interface AwsApplicationOptions {
  /** The bus the relay and the workflow steps publish to (EventBridge); without it events stay in the outbox. */
  readonly publisher?: (environment: AwsEnvironment) => EventPublisher;
  /** Starts workflow executions (Step Functions); without it no workflow can be started from this function. */
  readonly workflowStarter?: (environment: AwsEnvironment) => WorkflowStarter;
  /** The embedding model the environment names (Bedrock), for the functions that embed; else the default. */
  readonly embedder?: (environment: AwsEnvironment) => Embedder | undefined;
  /**
   * A search index outside the table (OpenSearch Serverless), for the functions that search or index; else the
   * embedded one. Given the embedder (its vectors' dimensions) and the credentials the table client signs with.
   */
  readonly searchIndex?: (
    environment: AwsEnvironment,
    context: { readonly embedder: Embedder | undefined; readonly credentials: AwsCredentialIdentityProvider },
  ) => SearchIndex | undefined;
  /** Reads the configuration parameter; the Parameters and Secrets extension unless a test passes its own. */
  readonly parameters?: ParameterReader;
}

/** One function's part of the service, and the Lambda handlers made from it (logged, metrics flushed). */
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
 * and the Encryption SDK over the KMS hierarchical keyring (branch keys wrapped by the tenant's customer-managed
 * key). The deployment's other
 * record kinds and settings come from the generated deployment document, so the service's own jobs meet every
 * kind and the configuration is checked whole. Init makes no AWS call: the configuration is the defaults deployed
 * with the function until the first invocation reads the operator's overrides from SSM (`SsmConfigProvider`,
 * through the Parameters and Secrets extension);
 * every invocation, API operation or not, refreshes it before its work.
 */
export const awsApplication = async (
  variables: Readonly<Record<string, string | undefined>>,
  modules: readonly AnyCapabilityModule[],
  options: AwsApplicationOptions = {},
): Promise<AwsApplication> => {
  const environment = AwsEnvironment.parse(variables);
  const served = withRequiredModules(modules);
  const { log, metrics, instrument } = lambdaObservability(environment.MEMORY_HUB_STAGE);
  const configuration = composeConfiguration(serviceConfigSectionsOf(served), {
    foreign: deployment.config,
  });
  // No call at init: the deployed defaults until the first invocation reads the operator's overrides.
  const config: ConfigProvider = SsmConfigProvider.create({
    parameterName: environment.MEMORY_HUB_CONFIG_PARAMETER,
    client: options.parameters ?? parametersExtensionClient(variables),
    metrics,
    log,
    configuration,
  });
  const client = new DynamoDBClient({ ...AWS_CLIENT_DEFAULTS });
  // A branch key per scope from the key store, wrapped by the tenant's key; records written before it was
  // introduced are still opened with their own KMS data key.
  const keys = new HierarchicalKeys({
    keyArn: environment.MEMORY_HUB_KEY_ARN,
    keyStore: {
      tableName: environment.MEMORY_HUB_BRANCH_KEY_TABLE_NAME,
      logicalName: environment.MEMORY_HUB_BRANCH_KEY_STORE_NAME,
      client,
    },
    ...(environment.MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS && {
      cacheSeconds: environment.MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS,
    }),
    legacy: perRecordKmsKeyring,
    metrics,
  });
  const cipher = contentCipherOver(keys);
  const clock = systemClock;
  const embedder = options.embedder?.(environment);
  // One client of the memory table for every adapter, the client quota ledger's too.
  const table = new MemoryTableClient({ client, tableName: environment.MEMORY_HUB_TABLE_NAME, metrics });
  const service = composeService(
    {
      config,
      metrics,
      log,
      clock,
      ids: createUlidGenerator(),
      kinds: RecordKinds.described(deployment.recordKinds, recordKindsOf(served)),
      ...dynamoDbPorts({ table, cipher, indexCipher: uncachedContentCipherOver(keys), clock, metrics, config }),
      clientQuota: new DynamoDbClientQuotaLedger({ table }),
      embedder,
      searchIndex: options.searchIndex?.(environment, { embedder, credentials: client.config.credentials }),
      // Consumers run as their own functions behind EventBridge rules; the relay only publishes.
      publisher: () =>
        options.publisher && environment.MEMORY_HUB_EVENT_BUS_NAME
          ? options.publisher(environment)
          : // A function not wired to the bus publishes nothing; its events stay in the outbox for the relay.
            { publish: async (events) => ({ failed: events }) },
      workflowStarter: () =>
        options.workflowStarter?.(environment) ?? {
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
      return instrument(withConfig(config, consumerHandler(consumer)));
    },
    relayOutboxStream: instrument(withConfig(config, relayOutboxStreamHandler(service.system.relay))),
    sweepOutbox: instrument(withConfig(config, sweepOutboxHandler(service.system.relay))),
    runWorkflowStep: instrument(withConfig(config, runWorkflowStepHandler(service.system.workflowSteps))),
  };
};

/** What the API's middleware does before an operation, for the functions behind streams, rules and state machines. */
const withConfig =
  <Event, Result>(config: ConfigProvider, handler: (event: Event) => Promise<Result>) =>
  async (event: Event): Promise<Result> => {
    await config.refresh();
    return handler(event);
  };

const safeJson = (value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};
