/**
 * What every function running the Memory Hub backend is told and allowed, in one place: the environment
 * `lambdas/composition/create-aws-backend.ts` parses at init, and the grants that go with a storage access.
 */
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import type { BranchKeyStore } from './constructs/branch-key-store.ts';
import type { EncryptionKey } from './constructs/encryption-key.ts';
import { grantMemoryTableData } from './constructs/memory-table.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import type { StorageAccess } from './openapi-operations.ts';

/** The resources a backend function works on. */
export interface BackendResources {
  /** Deployment stage, passed as `MEMORY_HUB_STAGE`. */
  readonly stage: string;
  /** The memory table; data-plane grants on it and its indexes follow the access. */
  readonly table: Table;
  /** The customer-managed key of the table and of the envelope encryption, with its grants. */
  readonly encryptionKey: EncryptionKey;
  /** The tunable configuration (JSON), read at start by every function with storage access. */
  readonly configParameter: IStringParameter;
  /** The branch keys record content is encrypted under, one per scope, wrapped by the key above. */
  readonly branchKeyStore: BranchKeyStore;
}

export interface BackendAccessOptions {
  /**
   * Whether the function opens or makes record content (API functions, consumers, workflow steps). The outbox
   * relay and its sweep move events, which carry no content, and get no content data keys.
   * @default true
   */
  readonly handlesContent?: boolean;
}

/**
 * Whether a backend function reads the configuration parameter (and so runs the extension it reads it through,
 * `ServiceFunctionProps.readsParameters`): every one with storage access. One without (`none`: health, the OpenAPI
 * document) runs on the built-in defaults.
 */
export const readsConfiguration = (access: StorageAccess): boolean => access !== 'none';

/**
 * The environment of a backend function. A function without storage access is not given the configuration
 * parameter (`readsConfiguration`).
 */
export function backendEnvironment(resources: BackendResources, access: StorageAccess): Record<string, string> {
  return {
    MEMORY_HUB_STAGE: resources.stage,
    MEMORY_HUB_TABLE_NAME: resources.table.tableName,
    MEMORY_HUB_KEY_ARN: resources.encryptionKey.key.keyArn,
    ...(readsConfiguration(access) ? { MEMORY_HUB_CONFIG_PARAMETER: resources.configParameter.parameterName } : {}),
    ...(access === 'none' ? {} : resources.branchKeyStore.environment()),
  };
}

/**
 * Grants that follow a storage access:
 * - `none`: nothing beyond the function's own log group;
 * - `read`: reading the table and its indexes, the key through DynamoDB (`grantTableUse`), opening content
 *   data keys (`grantContentKeys`) and branch keys (`grantBranchKeyUse`), reading the configuration parameter;
 * - `write`: the same with writing the table and creating a scope's branch key (`grantBranchKeyCreation`).
 * A function that does not handle content (`handlesContent: false`) gets neither content nor branch keys.
 * Key grants are the key's and the key store's own, each on a condition; the table's carry no key grant.
 */
export function grantBackendAccess(
  serviceFunction: ServiceFunction,
  resources: BackendResources,
  access: StorageAccess,
  { handlesContent = true }: BackendAccessOptions = {},
): void {
  if (access === 'none') return;
  const { table, encryptionKey, configParameter, branchKeyStore } = resources;
  const role = serviceFunction.role;
  grantMemoryTableData(table, role, access);
  encryptionKey.grantTableUse(role);
  if (handlesContent) {
    encryptionKey.grantContentKeys(role);
    // A scope's branch key is made on its first write, by whichever writing function meets it first.
    if (access === 'write') branchKeyStore.grantBranchKeyCreation(role);
    else branchKeyStore.grantBranchKeyUse(role);
  }
  configParameter.grantRead(role);
}
