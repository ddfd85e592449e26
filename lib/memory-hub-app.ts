import { App, type AppProps, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { chosenEnvironment } from './deployment-environment.ts';
import { MemoryHubStack, type MemoryHubStackProps, type RequestTracing } from './memory-hub-stack.ts';
import { concurrencyFromContext } from './reserved-concurrency.ts';

// cdk-nag is CommonJS with exports Node cannot detect statically; take them from the default export.
const { AwsSolutionsChecks, ServerlessChecks } = cdkNag;

export const DEFAULT_STAGE = 'dev';

export interface MemoryHubAppOptions extends Omit<MemoryHubStackProps, 'stage'> {
  readonly appProps?: AppProps;
  /** @default context `stage`, else `dev` */
  readonly stage?: string;
  /**
   * Where an operator's choice of region is read from when `env` is not given (`bin/app.ts` passes
   * `process.env`); see `chosenEnvironment`.
   * @default none: only the context can choose
   */
  readonly environmentVariables?: Readonly<Record<string, string | undefined>>;
}

/**
 * The CDK app: one `MemoryHub-{stage}` stack, checked against the cdk-nag AwsSolutions and Serverless rules
 * during synthesis (every finding is fixed or acknowledged with a reason where the resource is defined).
 * Shared by `bin/app.ts` and the infrastructure tests so both check the same app.
 */
export function createMemoryHubApp(options: MemoryHubAppOptions = {}): { app: App; stack: MemoryHubStack } {
  const { appProps, stage: requestedStage, environmentVariables = {}, env, ...stackProps } = options;
  const app = new App(appProps);
  const contextStage: unknown = app.node.tryGetContext('stage');
  const stage = requestedStage ?? (typeof contextStage === 'string' ? contextStage : DEFAULT_STAGE);
  const environment =
    env ?? chosenEnvironment({ context: (key) => app.node.tryGetContext(key), variables: environmentVariables });
  const contextKeyArn: unknown = app.node.tryGetContext('encryptionKeyArn');
  const encryptionKeyArn =
    stackProps.encryptionKeyArn ?? (typeof contextKeyArn === 'string' ? contextKeyArn : undefined);
  const contextModelId: unknown = app.node.tryGetContext('embeddingModelId');
  const contextDimensions: unknown = app.node.tryGetContext('embeddingDimensions');
  const embeddingModel =
    stackProps.embeddingModel ??
    (typeof contextModelId === 'string'
      ? { modelId: contextModelId, ...(contextDimensions !== undefined && { dimensions: Number(contextDimensions) }) }
      : undefined);
  const contextTracing: unknown = app.node.tryGetContext('requestTracing');
  const requestTracing = stackProps.requestTracing ?? (contextTracing as RequestTracing | undefined);
  const stack = new MemoryHubStack(app, `MemoryHub-${stage}`, {
    ...concurrencyFromContext((key) => app.node.tryGetContext(key)),
    ...stackProps,
    encryptionKeyArn,
    ...(embeddingModel && { embeddingModel }),
    ...(requestTracing !== undefined && { requestTracing }),
    env: environment,
    stage,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack };
}
