import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
  type TableProps,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * The table's attribute names: a fixed contract with the DynamoDB record store (`lambdas/adapters/dynamodb`).
 * Changing one is a data migration, not a refactoring.
 */
export const MEMORY_TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  outboxIndex: {
    indexName: 'outbox',
    partitionKey: 'outboxShard',
    sortKey: 'outboxAt',
    projectedAttributes: ['outboxEvent'],
  },
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
 * - The stream carries new images for the consumers; the sparse `outbox` index holds only the revisions
 *   marked for relay (`outboxShard`/`outboxAt`), projecting the event to publish.
 */
export class MemoryTable extends Construct {
  public readonly table: Table;

  constructor(scope: Construct, id: string, props: MemoryTableProps) {
    super(scope, id);
    const { outboxIndex } = MEMORY_TABLE_SCHEMA;
    // `Table` rather than `TableV2`: a TableV2 encrypted with a customer-managed key needs a concrete
    // region at synthesis, and the app must also synthesize environment-agnostic.
    this.table = new Table(this, 'Table', {
      ...props.tableProps,
      partitionKey: { name: MEMORY_TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: MEMORY_TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: MEMORY_TABLE_SCHEMA.timeToLiveAttribute,
      stream: StreamViewType.NEW_IMAGE,
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: outboxIndex.indexName,
      partitionKey: { name: outboxIndex.partitionKey, type: AttributeType.STRING },
      sortKey: { name: outboxIndex.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: [...outboxIndex.projectedAttributes],
    });
  }
}
