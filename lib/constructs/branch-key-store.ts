import type { Duration } from 'aws-cdk-lib';
import { AttributeType, Table, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { protectedTableProps } from './protected-table.ts';

/**
 * The key store's item format, a fixed contract with the Encryption SDK's `BranchKeyStoreNode` and the service's
 * branch key creator (`lambdas/adapters/crypto/branch-key-store-table.ts`, which a test compares with this).
 */
export const BRANCH_KEY_STORE_SCHEMA = {
  partitionKey: 'branch-key-id',
  sortKey: 'type',
  /** Every attribute an item has; a creating role may write no other (`dynamodb:Attributes`). */
  attributes: ['branch-key-id', 'type', 'version', 'enc', 'kms-arn', 'create-time', 'hierarchy-version'],
  /** The encryption context key KMS sees the logical key store name under, on every branch key call. */
  logicalNameContextKey: 'tablename',
} as const;

/**
 * The bounds the runtime accepts for the branch key cache period (`BRANCH_KEY_CACHE_SECONDS` in
 * lambdas/adapters/crypto/hierarchical-keys.ts; a test compares the two).
 */
export const BRANCH_KEY_CACHE_TTL_SECONDS = { min: 1, max: 3600 } as const;

export interface BranchKeyStoreProps {
  /** Deployment stage; the logical key store name is `memory-hub-{stage}-branch-keys`. */
  readonly stage: string;
  /** The customer-managed key: it wraps every branch key and encrypts the table at rest. */
  readonly encryptionKey: IKey;
  /**
   * How long a function uses a branch key from memory before KMS unwraps it again: the bound on how long access
   * outlives a disabled key or a destroyed branch key, against one KMS Decrypt per scope per function instance per
   * period. Whole seconds, 1 s to 1 h.
   * @default the runtime's default, 5 minutes (`BRANCH_KEY_CACHE_SECONDS` in lambdas/adapters/crypto)
   */
  readonly cacheTtl?: Duration;
  /** Overrides for the table; key schema, encryption, billing, recovery and protection are not overridable. */
  readonly tableProps?: Pick<TableProps, 'tableName' | 'contributorInsightsSpecification' | 'tableClass'>;
}

/**
 * The branch key store of the KMS hierarchical keyring: one branch key per principal, project and organisation,
 * each wrapped by the customer-managed key (README, "Keys"). On-demand, encrypted with the same key,
 * point-in-time recovery and deletion protection on, retained when the stack is deleted — content is unreadable
 * without its branch key, so losing the table loses the data. Destroying one scope's items (lifecycle) shreds it.
 *
 * Functions get `grantBranchKeyUse` (read and unwrap) or `grantBranchKeyCreation` (also create a scope's key on
 * its first write): DynamoDB reads and conditional puts on this table only, and the KMS calls the key store makes,
 * each on the condition that the encryption context names this key store.
 */
export class BranchKeyStore extends Construct {
  public readonly table: Table;
  /** Bound into every branch key's encryption context; it survives restoring the table under another name. */
  public readonly logicalKeyStoreName: string;
  public readonly encryptionKey: IKey;
  readonly #cacheTtlSeconds: number | undefined;

  constructor(scope: Construct, id: string, props: BranchKeyStoreProps) {
    super(scope, id);
    const seconds = props.cacheTtl === undefined ? undefined : props.cacheTtl.toMilliseconds() / 1000;
    if (
      seconds !== undefined &&
      (!Number.isInteger(seconds) ||
        seconds < BRANCH_KEY_CACHE_TTL_SECONDS.min ||
        seconds > BRANCH_KEY_CACHE_TTL_SECONDS.max)
    ) {
      throw new Error(`${this.node.path}: cacheTtl must be whole seconds from 1 s to 1 h`);
    }
    this.#cacheTtlSeconds = seconds;
    this.encryptionKey = props.encryptionKey;
    this.logicalKeyStoreName = `memory-hub-${props.stage}-branch-keys`;
    this.table = new Table(this, 'Table', {
      ...props.tableProps,
      partitionKey: { name: BRANCH_KEY_STORE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: BRANCH_KEY_STORE_SCHEMA.sortKey, type: AttributeType.STRING },
      ...protectedTableProps(props.encryptionKey),
    });
  }

  /** What a function is told to reach the key store (`AwsEnvironment` in lambdas/composition/aws-application.ts). */
  environment(): Record<string, string> {
    return {
      MEMORY_HUB_BRANCH_KEY_TABLE_NAME: this.table.tableName,
      MEMORY_HUB_BRANCH_KEY_STORE_NAME: this.logicalKeyStoreName,
      ...(this.#cacheTtlSeconds !== undefined && {
        MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS: String(this.#cacheTtlSeconds),
      }),
    };
  }

  /** Reading a branch key (`GetItem`) and having KMS unwrap it (`Decrypt`), for functions that only read content. */
  grantBranchKeyUse(grantee: IGrantable): Grant {
    const read = Grant.addToPrincipal({ grantee, actions: ['dynamodb:GetItem'], resourceArns: [this.table.tableArn] });
    return read.combine(this.#grantKeyStoreKms(grantee, ['kms:Decrypt']));
  }

  /**
   * Also creating a scope's branch key on its first write: `PutItem` of the key store's own attributes only (the
   * creator's puts are conditional on the item being absent), and KMS `GenerateDataKeyWithoutPlaintext` and
   * `ReEncrypt` (the branch key generated, then bound as the active version) — never a plaintext key.
   */
  grantBranchKeyCreation(grantee: IGrantable): Grant {
    const put = Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:PutItem'],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...BRANCH_KEY_STORE_SCHEMA.attributes] },
      },
    });
    return this.grantBranchKeyUse(grantee)
      .combine(put)
      .combine(
        this.#grantKeyStoreKms(grantee, [
          'kms:GenerateDataKeyWithoutPlaintext',
          'kms:ReEncryptFrom',
          'kms:ReEncryptTo',
        ]),
      );
  }

  /** KMS calls whose encryption context names this key store: no other data key of the same key can be asked for. */
  #grantKeyStoreKms(grantee: IGrantable, actions: string[]): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [this.encryptionKey.keyArn],
      conditions: {
        StringEquals: {
          [`kms:EncryptionContext:${BRANCH_KEY_STORE_SCHEMA.logicalNameContextKey}`]: this.logicalKeyStoreName,
        },
      },
    });
  }
}
