/**
 * The data documents generated from the capability list (`npm run generate`). The CDK app reads them (lib/
 * never imports runtime code), functions read the deployment document, and a test fails when a committed
 * document drifts from its source. Each builder takes a service's tables, the deployed one by default.
 */
import type { DeploymentDocument } from '../composition/deployment-document.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { describeRecordKind } from '../kernel/namespaces/record-kind.ts';
import { SERVICE } from './service-tables.ts';

export const OPENAPI_DOCUMENT_PATH = 'lambdas/generated/openapi.json';
export const WORKFLOWS_DOCUMENT_PATH = 'lambdas/generated/workflows.json';
export const DEFAULT_CONFIG_DOCUMENT_PATH = 'lambdas/generated/default-config.json';
export const DEPLOYMENT_DOCUMENT_PATH = 'lambdas/generated/deployment.json';

type ServiceTables = Pick<typeof SERVICE, 'operations' | 'kinds' | 'workflows' | 'consumers'> & {
  readonly configuration: Pick<typeof SERVICE.configuration, 'defaults' | 'layout'>;
};

export const openApiDocument = (service: ServiceTables = SERVICE) => buildOpenApiDocument(service.operations);

/** The data CDK builds state machines from. */
export const workflowsDocument = (service: ServiceTables = SERVICE) => ({ version: 1, workflows: service.workflows });

/**
 * The order the sections were first deployed in. CloudFormation sets the configuration parameter to this
 * document as a string, and a changed string makes it overwrite what operators tuned: sections keep their
 * places, new ones follow in module order, `agents` last.
 */
const DEPLOYED_SECTION_ORDER = ['retention', 'learning', 'http', 'listing', 'housekeeping'];

/** The defaults as the document an operator would write, laid out as deployed. */
export const defaultConfigDocument = (service: ServiceTables = SERVICE) => {
  const defaults: Record<string, unknown> = service.configuration.defaults;
  // Unlisted sections (and `agents`, composed last) keep their order behind the listed ones: the sort is stable.
  const rank = (name: string) => {
    const deployed = DEPLOYED_SECTION_ORDER.indexOf(name);
    return deployed === -1 ? DEPLOYED_SECTION_ORDER.length : deployed;
  };
  return Object.fromEntries(Object.entries(defaults).sort(([a], [b]) => rank(a) - rank(b))) as typeof defaults;
};

export const deploymentDocument = (service: ServiceTables = SERVICE): DeploymentDocument => ({
  version: 1,
  recordKinds: [...service.kinds].map(describeRecordKind),
  consumers: service.consumers.map(({ handles = () => true, ...consumer }) => ({
    ...consumer,
    recordKinds: [...service.kinds].filter(handles).map((kind) => kind.name),
  })),
  workflows: service.workflows.map((workflow) => workflow.name),
  config: service.configuration.layout,
});

/** Every generated document with its path, in the order `npm run generate` writes them. */
export const GENERATED_DOCUMENTS: readonly (readonly [string, () => unknown])[] = [
  [OPENAPI_DOCUMENT_PATH, () => openApiDocument()],
  [WORKFLOWS_DOCUMENT_PATH, () => workflowsDocument()],
  [DEFAULT_CONFIG_DOCUMENT_PATH, () => defaultConfigDocument()],
  [DEPLOYMENT_DOCUMENT_PATH, () => deploymentDocument()],
];
