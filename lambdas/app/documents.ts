/**
 * The data documents generated from the capability list (`npm run generate`). The CDK app reads them (lib/
 * never imports runtime code), functions read the deployment document, and a test fails when a committed
 * document drifts from its source.
 */

import type { DeploymentDocument } from '../composition/deployment-document.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { describeRecordKind } from '../kernel/namespaces/record-kind.ts';
import { API_OPERATIONS, CONSUMERS, RECORD_KINDS, SERVICE_CONFIGURATION, WORKFLOWS } from './service-tables.ts';

export const OPENAPI_DOCUMENT_PATH = 'lambdas/generated/openapi.json';
export const WORKFLOWS_DOCUMENT_PATH = 'lambdas/generated/workflows.json';
export const DEFAULT_CONFIG_DOCUMENT_PATH = 'lambdas/generated/default-config.json';
export const DEPLOYMENT_DOCUMENT_PATH = 'lambdas/generated/deployment.json';

export const openApiDocument = () => buildOpenApiDocument(API_OPERATIONS);

/** The data CDK builds state machines from. */
export const workflowsDocument = () => ({ version: 1, workflows: WORKFLOWS });

/** The defaults as the document an operator would write. */
export const defaultConfigDocument = () => SERVICE_CONFIGURATION.defaults;

export const deploymentDocument = (): DeploymentDocument => ({
  version: 1,
  recordKinds: [...RECORD_KINDS].map(describeRecordKind),
  consumers: CONSUMERS,
  workflows: WORKFLOWS.map((workflow) => workflow.name),
  config: SERVICE_CONFIGURATION.layout,
});

/** Every generated document with its path, in the order `npm run generate` writes them. */
export const GENERATED_DOCUMENTS: readonly (readonly [string, () => unknown])[] = [
  [OPENAPI_DOCUMENT_PATH, openApiDocument],
  [WORKFLOWS_DOCUMENT_PATH, workflowsDocument],
  [DEFAULT_CONFIG_DOCUMENT_PATH, defaultConfigDocument],
  [DEPLOYMENT_DOCUMENT_PATH, deploymentDocument],
];
