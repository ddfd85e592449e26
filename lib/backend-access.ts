/**
 * What every function running the Memory Hub backend is told and allowed, in one place: the environment
 * `lambdas/composition/create-aws-backend.ts` parses at init, and the grants that go with a storage access.
 */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import type { ServiceFunction } from './constructs/service-function.ts';
import type { StorageAccess } from './openapi-operations.ts';

/** The resources a backend function works on. */
export interface BackendResources {
  /** Deployment stage, passed as `MEMORY_HUB_STAGE`. */
  readonly stage: string;
  /** The memory table; data-plane grants on it and its indexes follow the access. */
  readonly table: Table;
  /** The customer-managed key of the table and of the envelope encryption. */
  readonly encryptionKey: IKey;
  /** The tunable configuration (JSON), read at start by every function with storage access. */
  readonly configParameter: IStringParameter;
}

/**
 * The environment of a backend function. A function without storage access (`none`: health, the
 * OpenAPI document) runs on the built-in defaults and is not given the configuration parameter.
 */
export function backendEnvironment(resources: BackendResources, access: StorageAccess): Record<string, string> {
  return {
    MEMORY_HUB_STAGE: resources.stage,
    MEMORY_HUB_TABLE_NAME: resources.table.tableName,
    MEMORY_HUB_KEY_ARN: resources.encryptionKey.keyArn,
    ...(access === 'none' ? {} : { MEMORY_HUB_CONFIG_PARAMETER: resources.configParameter.parameterName }),
  };
}

/**
 * Grants that follow a storage access:
 * - `none`: nothing beyond the function's own log group;
 * - `read`: `table.grantReadData` + `key.grantDecrypt` + reading the configuration parameter;
 * - `write`: `table.grantReadWriteData` + `key.grantEncryptDecrypt` (which includes `GenerateDataKey*`,
 *   needed to create data keys for envelope encryption) + reading the configuration parameter.
 */
export function grantBackendAccess(
  serviceFunction: ServiceFunction,
  resources: BackendResources,
  access: StorageAccess,
): void {
  const { table, encryptionKey, configParameter } = resources;
  const role = serviceFunction.role;
  switch (access) {
    case 'none':
      return;
    case 'read':
      table.grantReadData(role);
      encryptionKey.grantDecrypt(role);
      break;
    case 'write':
      table.grantReadWriteData(role);
      encryptionKey.grantEncryptDecrypt(role);
      Validations.of(role).acknowledge(
        {
          id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
          reason:
            'From key.grantEncryptDecrypt on the one customer-managed key: envelope encryption creates data keys (GenerateDataKey, GenerateDataKeyWithoutPlaintext).',
        },
        {
          id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
          reason: 'From key.grantEncryptDecrypt on the one customer-managed key (ReEncryptFrom/To on that key only).',
        },
      );
      break;
  }
  configParameter.grantRead(role);
  Validations.of(role).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${tableLogicalIdOf(table)}.Arn>/index/*]`,
    reason: `From table.grant${access === 'read' ? 'ReadData' : 'ReadWriteData'}: queries of this table's own indexes (the outbox index), no other table.`,
  });
}

/** The logical id of the table resource, as cdk-nag names it in findings about its ARN. */
export function tableLogicalIdOf(table: Table): string {
  return Stack.of(table).getLogicalId(table.node.defaultChild as CfnElement);
}
