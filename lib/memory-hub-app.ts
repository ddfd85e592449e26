import { App, type AppProps, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { MemoryHubStack, type MemoryHubStackProps } from './memory-hub-stack.ts';

// cdk-nag is CommonJS with exports Node cannot detect statically; take them from the default export.
const { AwsSolutionsChecks } = cdkNag;

export const DEFAULT_STAGE = 'dev';

export interface MemoryHubAppOptions extends Omit<MemoryHubStackProps, 'stage'> {
  readonly appProps?: AppProps;
  /** @default context `stage`, else `dev` */
  readonly stage?: string;
}

/**
 * The CDK app: one `MemoryHub-{stage}` stack, checked against the cdk-nag AwsSolutions rules during
 * synthesis (every finding is fixed or acknowledged with a reason where the resource is defined).
 * Shared by `bin/app.ts` and the infrastructure tests so both check the same app.
 */
export function createMemoryHubApp(options: MemoryHubAppOptions = {}): { app: App; stack: MemoryHubStack } {
  const { appProps, stage: requestedStage, ...stackProps } = options;
  const app = new App(appProps);
  const contextStage: unknown = app.node.tryGetContext('stage');
  const stage = requestedStage ?? (typeof contextStage === 'string' ? contextStage : DEFAULT_STAGE);
  const stack = new MemoryHubStack(app, `MemoryHub-${stage}`, { ...stackProps, stage });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
