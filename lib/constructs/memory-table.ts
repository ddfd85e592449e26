import { AttributeType, StreamViewType, Table, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { protectedTableProps } from './protected-table.ts';

/**
 * The table's attribute names: a fixed contract with the DynamoDB record store (`lambdas/adapters/dynamodb`).
 * Changing one is a data migration, not a refactoring.
 */
export const MEMORY_TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  /** The attribute a committed revision names its outbox marker in (a string), for the stream's relay. */
  outboxMarkerAttribute: 'outboxMarker',
} as const;

export interface MemoryTableProps {
  /** The customer-managed key the table is encrypted with (encryption-or-fail: there is no default). */
  readonly encryptionKey: IKey;
  /**
   * Overrides for the table (e.g. `tableName`, `contributorInsightsSpecification`, `tags`). The key schema,
   * TTL attribute, stream, index, encryption, billing, recovery and protection settings are not overridable.
   */
  readonly tableProps?: Omit<
    TableProps,
    | 'partitionKey'
    | 'sortKey'
    | 'timeToLiveAttribute'
    | 'stream'
    | 'encryption'
    | 'encryptionKey'
    | 'billingMode'
    | 'readCapacity'
    | 'writeCapacity'
    | 'maxReadRequestUnits'
    | 'maxWriteRequestUnits'
    | 'pointInTimeRecoverySpecification'
    | 'pointInTimeRecovery'
    | 'deletionProtection'
    | 'removalPolicy'
    | 'replicationRegions'
  >;
}

/**
 * The single table of append-only revisions, head projections and short-term events.
 *
 * - On-demand: load follows agents, and there is no capacity to tune.
 * - Encrypted with the customer-managed key, point-in-time recovery on, deletion protection on, retained
 *   when the stack is deleted.
 * - `ttl` (epoch seconds) lets DynamoDB delete expired items (late: reads filter expired items too).
 * - The stream carries new images: each revision's, naming its outbox marker, for the relay. No secondary
 *   index: every read is by partition (the outbox's markers have partitions of their own).
 */
export class MemoryTable extends Construct {
  public readonly table: Table;

  constructor(scope: Construct, id: string, props: MemoryTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      ...props.tableProps,
      partitionKey: { name: MEMORY_TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: MEMORY_TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: MEMORY_TABLE_SCHEMA.timeToLiveAttribute,
      stream: StreamViewType.NEW_IMAGE,
      ...protectedTableProps(props.encryptionKey),
    });
  }
}

/** The data-plane actions of `Table.grantReadData`, less the stream actions (the stream has its own grant). */
export const MEMORY_TABLE_READ_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:GetItem',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
] as const;
/** What `Table.grantReadWriteData` adds to reading. */
export const MEMORY_TABLE_WRITE_ACTIONS = [
  'dynamodb:BatchWriteItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/**
 * Reading (and writing) the table and its indexes. Through `table.grant`, which grants on the table alone:
 * `grantReadData`/`grantReadWriteData` would also add the table key's `Encrypt`, `ReEncrypt*` and
 * `GenerateDataKey*` on no condition, where `EncryptionKey.grantTableUse` gives what DynamoDB needs.
 */
export function grantMemoryTableData(table: Table, grantee: IGrantable, access: 'read' | 'write'): Grant {
  return table.grant(grantee, ...MEMORY_TABLE_READ_ACTIONS, ...(access === 'write' ? MEMORY_TABLE_WRITE_ACTIONS : []));
}

/**
 * The per-client throttle's items in the memory table, a fixed contract with the DynamoDB quota ledger
 * (`CLIENT_QUOTA_ITEMS` in lambdas/adapters/dynamodb/dynamodb-client-quota-ledger.ts; a test compares the two):
 * one item per app client and one-second window, under a partition key prefix no namespace key has.
 */
export const CLIENT_QUOTA_ITEMS = {
  partitionKeyPrefix: 'client-quota#',
  /** Every attribute a lease touches. */
  attributes: ['pk', 'sk', 'leased', 'ttl'],
} as const;

/**
 * Leasing app clients' request quota, for API functions that otherwise only read: `UpdateItem` of the quota items
 * alone (partition keys under the prefix, `dynamodb:LeadingKeys`) and of their attributes alone
 * (`dynamodb:Attributes`). Reading a window's count back is a `GetItem`, which reading functions hold already.
 */
export function grantClientQuotaLeases(table: Table, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:UpdateItem'],
    resourceArns: [table.tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CLIENT_QUOTA_ITEMS.partitionKeyPrefix}*`] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...CLIENT_QUOTA_ITEMS.attributes] },
    },
  });
}
