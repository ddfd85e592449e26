import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import type { FeaturePlan } from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';
import { ApiFunctions } from './constructs/api-functions.ts';
import { EncryptionKey } from './constructs/encryption-key.ts';
import { MemoryHubHttpApi } from './constructs/http-api.ts';
import { Identity } from './constructs/identity.ts';
import { MemoryTable } from './constructs/memory-table.ts';
import { loadOpenApiDocument } from './openapi-operations.ts';

/** The repository root: Lambda entries in the OpenAPI document are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The document generated from the zod operation definitions (`lambdas/http`). */
export const OPENAPI_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'lambdas/http/openapi.json');

/** Lower-case, starts with a letter: it ends up in the stack name, the key alias and the pool name. */
export const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

export interface MemoryHubStackProps extends StackProps {
  /** Deployment stage, e.g. `dev`, `prod`. */
  readonly stage: string;
  /** @default OPENAPI_DOCUMENT_PATH */
  readonly openApiDocumentPath?: string;
  /** Directory the document's Lambda entries are relative to. @default PROJECT_ROOT */
  readonly projectRoot?: string;
  /** Stage-wide API throttling. @default DEFAULT_THROTTLE of the HTTP API construct */
  readonly throttle?: ThrottleSettings;
  /** @default FeaturePlan.ESSENTIALS */
  readonly featurePlan?: FeaturePlan.ESSENTIALS | FeaturePlan.PLUS;
}

/** One deployment of Memory Hub. Composes the constructs; holds no resource definitions of its own. */
export class MemoryHubStack extends Stack {
  public readonly encryptionKey: EncryptionKey;
  public readonly memoryTable: MemoryTable;
  public readonly identity: Identity;
  public readonly api: MemoryHubHttpApi;
  public readonly apiFunctions: ApiFunctions;

  constructor(scope: Construct, id: string, props: MemoryHubStackProps) {
    if (!STAGE_PATTERN.test(props.stage)) {
      throw new Error(`Invalid stage "${props.stage}": expected ${STAGE_PATTERN} (e.g. dev, prod)`);
    }
    const { stage, openApiDocumentPath, projectRoot, throttle, featurePlan, ...stackProps } = props;
    super(scope, id, {
      description: `Memory Hub (${stage}): governed memory service for multi-agent LLM systems`,
      ...stackProps,
    });
    Tags.of(this).add('project', 'memory-hub');
    Tags.of(this).add('stage', stage);

    this.encryptionKey = new EncryptionKey(this, 'EncryptionKey', { stage });
    this.memoryTable = new MemoryTable(this, 'MemoryTable', { encryptionKey: this.encryptionKey.key });
    this.identity = new Identity(this, 'Identity', {
      stage,
      ...(featurePlan ? { featurePlan } : {}),
    });
    this.api = new MemoryHubHttpApi(this, 'HttpApi', {
      userPool: this.identity.userPool,
      userPoolClients: [this.identity.agentAppClient],
      ...(throttle ? { throttle } : {}),
    });
    this.apiFunctions = new ApiFunctions(this, 'ApiFunctions', {
      stage,
      document: loadOpenApiDocument(openApiDocumentPath ?? OPENAPI_DOCUMENT_PATH),
      projectRoot: projectRoot ?? PROJECT_ROOT,
      httpApi: this.api.httpApi,
      authorizer: this.api.authorizer,
      table: this.memoryTable.table,
      encryptionKey: this.encryptionKey.key,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'UserPoolId', { value: this.identity.userPool.userPoolId });
    new CfnOutput(this, 'AgentAppClientId', { value: this.identity.agentAppClient.userPoolClientId });
    new CfnOutput(this, 'TableName', { value: this.memoryTable.table.tableName });
    new CfnOutput(this, 'KeyAlias', { value: this.encryptionKey.alias.aliasName });
  }
}
