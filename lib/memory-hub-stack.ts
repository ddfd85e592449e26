import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import type { FeaturePlan } from 'aws-cdk-lib/aws-cognito';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { BackendResources } from './backend-access.ts';
import { pascalCase } from './construct-ids.ts';
import { ApiFunctions } from './constructs/api-functions.ts';
import { BranchKeyStore } from './constructs/branch-key-store.ts';
import { EmbeddingModel, type EmbeddingModelProps } from './constructs/embedding-model.ts';
import { EncryptionKey } from './constructs/encryption-key.ts';
import { MemoryHubEventBus } from './constructs/event-bus.ts';
import { EventConsumers } from './constructs/event-consumers.ts';
import { MemoryHubHttpApi } from './constructs/http-api.ts';
import { Identity } from './constructs/identity.ts';
import { MemoryTable } from './constructs/memory-table.ts';
import { OutboxRelay } from './constructs/outbox-relay.ts';
import { Parameters } from './constructs/parameters.ts';
import { SearchCollection } from './constructs/search-collection.ts';
import { Workflows } from './constructs/workflows.ts';
import { loadConsumers } from './deployment-document.ts';
import { BUNDLED_BACKENDS_CONTEXT, type BundledBackends } from './lambda-bundling.ts';
import { loadOpenApiDocument } from './openapi-operations.ts';
import { type ConcurrencyProps, reserveConcurrency } from './reserved-concurrency.ts';
import { loadWorkflowsDocument } from './workflow-policies.ts';

/** The retrieval capability's entry: its API functions search, its index consumer writes the index. */
const RETRIEVAL_ENTRY = 'lambdas/capabilities/retrieval/retrieval.lambda.ts';
const SEARCH_INDEX_CONSUMER_HANDLER = 'searchIndexConsumer';

/** The repository root: Lambda entries in the OpenAPI document are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The document generated from the zod operation definitions (`lambdas/http`). */
export const OPENAPI_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'lambdas/generated/openapi.json');
/** The workflow policies generated from the core's workflow catalogue. */
export const WORKFLOWS_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'lambdas/generated/workflows.json');
/** The deployment document generated from the capability list: the consumers of record events, and their entries. */
export const DEPLOYMENT_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'lambdas/generated/deployment.json');
/** Entry of the outbox relay (`relayOutboxStream`, `sweepOutbox`); consumers name their own entries. */
export const EVENTS_ENTRY = resolve(PROJECT_ROOT, 'lambdas/app/event-backbone.lambda.ts');
/** Entry of the workflow step runner (`runWorkflowStep`). */
export const WORKFLOWS_ENTRY = resolve(PROJECT_ROOT, 'lambdas/app/workflows.lambda.ts');

/** Lower-case, starts with a letter: it ends up in the stack name, the key alias and the pool name. */
export const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

export interface MemoryHubStackProps extends StackProps, ConcurrencyProps {
  /** Deployment stage, e.g. `dev`, `prod`. */
  readonly stage: string;
  /** @default OPENAPI_DOCUMENT_PATH */
  readonly openApiDocumentPath?: string;
  /** Directory the document's Lambda entries are relative to. @default PROJECT_ROOT */
  readonly projectRoot?: string;
  /** @default WORKFLOWS_DOCUMENT_PATH */
  readonly workflowsDocumentPath?: string;
  /** @default DEPLOYMENT_DOCUMENT_PATH */
  readonly deploymentDocumentPath?: string;
  /** @default EVENTS_ENTRY */
  readonly eventsEntry?: string;
  /** @default WORKFLOWS_ENTRY */
  readonly workflowsEntry?: string;
  /** Stage-wide API throttling. @default DEFAULT_THROTTLE of the HTTP API construct */
  readonly throttle?: ThrottleSettings;
  /** @default FeaturePlan.ESSENTIALS */
  readonly featurePlan?: FeaturePlan.ESSENTIALS | FeaturePlan.PLUS;
  /**
   * The tenant's own customer-managed key (its key ARN), used instead of a key the stack creates: see
   * `EncryptionKeyProps.existingKeyArn` and README, "Bringing your own key". Context `encryptionKeyArn`.
   * @default a key created by the stack
   */
  readonly encryptionKeyArn?: string;
  /**
   * An OpenSearch Serverless collection for the search index, for tenants who outgrow the embedded one (see
   * `SearchCollection`).
   * @default none: the embedded index, beside the records
   */
  readonly openSearch?: { readonly collectionName?: string; readonly indexName?: string };
  /**
   * A Bedrock embedding model for the semantic strategy (`{ modelId: 'amazon.titan-embed-text-v2:0', dimensions:
   * 512 }`); without it, the model-free default. Changing it re-embeds nothing by itself: vectors of another model
   * are not searched until the index is rebuilt. Context `embeddingModelId` / `embeddingDimensions`.
   */
  readonly embeddingModel?: EmbeddingModelProps;
  /**
   * How the request functions are traced: `pass-through` follows a caller's sampled trace only; `active` has Lambda
   * sample every function's requests too (about $0.50 more per million requests, BENCHMARKS.md). The background
   * functions and workflows trace actively either way. Context `requestTracing`.
   * @default 'pass-through' (`REQUEST_TRACING_DEFAULT`)
   */
  readonly requestTracing?: RequestTracing;
}

export const REQUEST_TRACING_CHOICES = ['active', 'pass-through'] as const;
export type RequestTracing = (typeof REQUEST_TRACING_CHOICES)[number];

/** One deployment of Memory Hub. Composes the constructs; holds no resource definitions of its own. */
export class MemoryHubStack extends Stack {
  public readonly encryptionKey: EncryptionKey;
  public readonly branchKeyStore: BranchKeyStore;
  public readonly memoryTable: MemoryTable;
  public readonly parameters: Parameters;
  public readonly eventBus: MemoryHubEventBus;
  public readonly outboxRelay: OutboxRelay;
  public readonly eventConsumers: EventConsumers;
  public readonly workflows: Workflows;
  public readonly identity: Identity;
  public readonly api: MemoryHubHttpApi;
  public readonly apiFunctions: ApiFunctions;
  /** Present when the `openSearch` prop asks for it. */
  public readonly searchCollection: SearchCollection | undefined;
  public readonly embeddingModel: EmbeddingModel | undefined;

  constructor(scope: Construct, id: string, props: MemoryHubStackProps) {
    if (!STAGE_PATTERN.test(props.stage)) {
      throw new Error(`Invalid stage "${props.stage}": expected ${STAGE_PATTERN} (e.g. dev, prod)`);
    }
    if (props.requestTracing !== undefined && !REQUEST_TRACING_CHOICES.includes(props.requestTracing)) {
      throw new Error(
        `Invalid requestTracing "${props.requestTracing}": expected ${REQUEST_TRACING_CHOICES.join(' or ')}`,
      );
    }
    const {
      stage,
      openApiDocumentPath,
      projectRoot,
      workflowsDocumentPath,
      deploymentDocumentPath,
      eventsEntry,
      workflowsEntry,
      throttle,
      featurePlan,
      encryptionKeyArn,
      openSearch,
      embeddingModel,
      requestTracing,
      reservedConcurrency,
      accountConcurrency,
      ...stackProps
    } = props;
    super(scope, id, {
      description: `Memory Hub (${stage}): governed memory service for multi-agent LLM systems`,
      ...stackProps,
    });
    Tags.of(this).add('project', 'memory-hub');
    Tags.of(this).add('stage', stage);
    // Before any function exists: each bundles the opt-in clients this deployment uses, and no other.
    this.node.setContext(BUNDLED_BACKENDS_CONTEXT, {
      searchIndex: openSearch ? 'opensearch' : 'embedded',
      embedder: embeddingModel ? 'bedrock' : 'hashing',
    } satisfies BundledBackends);

    this.encryptionKey = new EncryptionKey(this, 'EncryptionKey', { stage, existingKeyArn: encryptionKeyArn });
    this.memoryTable = new MemoryTable(this, 'MemoryTable', { encryptionKey: this.encryptionKey.key });
    this.parameters = new Parameters(this, 'Parameters', { stage });
    this.branchKeyStore = new BranchKeyStore(this, 'BranchKeyStore', { stage, encryptionKey: this.encryptionKey.key });
    const backend: BackendResources = {
      stage,
      table: this.memoryTable.table,
      encryptionKey: this.encryptionKey,
      configParameter: this.parameters.config,
      branchKeyStore: this.branchKeyStore,
    };

    this.eventBus = new MemoryHubEventBus(this, 'EventBus', { stage });
    this.outboxRelay = new OutboxRelay(this, 'OutboxRelay', {
      ...backend,
      entry: eventsEntry ?? EVENTS_ENTRY,
      eventBus: this.eventBus.bus,
    });
    const root = projectRoot ?? PROJECT_ROOT;
    this.eventConsumers = new EventConsumers(this, 'EventConsumers', {
      ...backend,
      consumers: loadConsumers(deploymentDocumentPath ?? DEPLOYMENT_DOCUMENT_PATH).map((consumer) => ({
        ...consumer,
        entry: resolve(root, consumer.entry),
      })),
      eventBus: this.eventBus.bus,
    });
    this.workflows = new Workflows(this, 'Workflows', {
      ...backend,
      document: loadWorkflowsDocument(workflowsDocumentPath ?? WORKFLOWS_DOCUMENT_PATH),
      entry: workflowsEntry ?? WORKFLOWS_ENTRY,
      eventBus: this.eventBus.bus,
    });

    this.identity = new Identity(this, 'Identity', {
      stage,
      ...(featurePlan ? { featurePlan } : {}),
    });
    this.api = new MemoryHubHttpApi(this, 'HttpApi', {
      userPool: this.identity.userPool,
      userPoolClients: this.identity.apiClients.map(({ client }) => client),
      ...(throttle ? { throttle } : {}),
    });
    this.apiFunctions = new ApiFunctions(this, 'ApiFunctions', {
      ...backend,
      document: loadOpenApiDocument(openApiDocumentPath ?? OPENAPI_DOCUMENT_PATH),
      projectRoot: root,
      httpApi: this.api.httpApi,
      authorizer: this.api.authorizer,
      stateMachines: this.workflows.stateMachines,
      ...(requestTracing && { tracing: requestTracing === 'active' ? Tracing.ACTIVE : Tracing.PASS_THROUGH }),
    });

    this.searchCollection = openSearch && this.#searchCollection(stage, openSearch);
    this.embeddingModel = embeddingModel && this.#embeddingModel(embeddingModel);

    reserveConcurrency(
      {
        api: [...this.apiFunctions.functions.values()],
        consumer: [...this.eventConsumers.byHandler.values()].map((consumer) => consumer.consumer),
        relay: [this.outboxRelay.relay],
        sweep: [this.outboxRelay.sweep],
        workflowStep: [this.workflows.stepRunner],
        preTokenGeneration: [this.identity.preTokenGeneration],
      },
      { reservedConcurrency, accountConcurrency },
    );

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'UserPoolId', { value: this.identity.userPool.userPoolId });
    new CfnOutput(this, 'AgentAppClientId', { value: this.identity.agentAppClient.userPoolClientId });
    new CfnOutput(this, 'ReaderAppClientId', {
      value: this.identity.readerAppClient.userPoolClientId,
      description: 'App client of read-only agents (memory-hub/memory.read)',
    });
    new CfnOutput(this, 'OperatorAppClientId', {
      value: this.identity.operatorAppClient.userPoolClientId,
      description: 'App client of operators (read, write and memory-hub/memory.admin)',
    });
    new CfnOutput(this, 'TableName', { value: this.memoryTable.table.tableName });
    new CfnOutput(this, 'KeyArn', {
      value: this.encryptionKey.key.keyArn,
      description: 'The customer-managed key of the table and of record content',
    });
    if (this.encryptionKey.alias) new CfnOutput(this, 'KeyAlias', { value: this.encryptionKey.alias.aliasName });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.bus.eventBusName });
    new CfnOutput(this, 'ConfigParameterName', { value: this.parameters.config.parameterName });
    for (const [name, stateMachine] of this.workflows.stateMachines) {
      new CfnOutput(this, `${pascalCase(name)}StateMachineArn`, {
        value: stateMachine.stateMachineArn,
        description: `State machine of the ${name} workflow`,
      });
    }
  }

  /**
   * The embedding model, granted to every function that embeds: the searches, the index consumer, and the workflow
   * step runner (the daily search index rebuild embeds with the model the searches use).
   */
  #embeddingModel(props: EmbeddingModelProps): EmbeddingModel {
    const model = new EmbeddingModel(this, 'EmbeddingModel', props);
    for (const spec of this.apiFunctions.specs) {
      const serviceFunction = this.apiFunctions.functions.get(spec.key);
      if (spec.entry === RETRIEVAL_ENTRY && serviceFunction) model.grantInvoke(serviceFunction.function);
    }
    const consumer = this.eventConsumers.byHandler.get(SEARCH_INDEX_CONSUMER_HANDLER);
    if (consumer) model.grantInvoke(consumer.consumer.function);
    model.grantInvoke(this.workflows.stepRunner.function);
    return model;
  }

  /**
   * The search collection, granted to the retrieval functions: search to the API's, indexing to the consumer's and
   * the step runner's (the search index rebuild).
   */
  #searchCollection(stage: string, props: NonNullable<MemoryHubStackProps['openSearch']>): SearchCollection {
    const collection = new SearchCollection(this, 'SearchCollection', {
      stage,
      encryptionKey: this.encryptionKey.key,
      ...props,
    });
    for (const spec of this.apiFunctions.specs) {
      const serviceFunction = this.apiFunctions.functions.get(spec.key);
      if (spec.entry === RETRIEVAL_ENTRY && serviceFunction) collection.grantSearch(serviceFunction.function);
    }
    const consumer = this.eventConsumers.byHandler.get(SEARCH_INDEX_CONSUMER_HANDLER);
    if (consumer) collection.grantIndexing(consumer.consumer.function);
    collection.grantIndexing(this.workflows.stepRunner.function);
    return collection;
  }
}
