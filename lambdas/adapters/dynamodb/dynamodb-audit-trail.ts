import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { AuditEntry } from '../../kernel/audit/audit-entry.schema.ts';
import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { ttlAttribute } from './memory-table.ts';

const DAY_MS = 86_400_000;

/**
 * The audit trail as items of the memory table, one partition per tenant (`audit#{tenant}`), sorted by
 * time. An entry is a conditional put keyed by its time and id, so a replayed event appends nothing.
 * Entries hold identifiers and decisions only, never content; they expire after the audit horizon.
 */
export class DynamoDbAuditTrail implements AuditTrail {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Clock;
  readonly #metrics: Metrics;
  readonly #retentionDays: () => number;

  constructor(options: {
    client: DynamoDBClient;
    tableName: string;
    clock: Clock;
    metrics: Metrics;
    retentionDays: () => number;
  }) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#clock = options.clock;
    this.#metrics = options.metrics;
    this.#retentionDays = options.retentionDays;
  }

  async append(tenant: string, entry: AuditEntry): Promise<'appended' | 'duplicate'> {
    const expires = this.#clock.now().getTime() + this.#retentionDays() * DAY_MS;
    try {
      const output = await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            pk: { S: `audit#${tenant}` },
            sk: { S: `A#${entry.occurredAt}#${entry.id}` },
            entry: { S: JSON.stringify(AuditEntry.parse(entry)) },
            ttl: ttlAttribute(expires),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      this.#metrics.storageRequest({
        operation: 'PutItem',
        capacityUnits: output.ConsumedCapacity?.CapacityUnits ?? 0,
      });
      return 'appended';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'duplicate';
      throw translateAwsError(error);
    }
  }

  async list(tenant: string, page: PageRequest & { since?: string | undefined }): Promise<Page<AuditEntry>> {
    const position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith('A#')) : undefined;
    try {
      const output = await this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk AND sk >= :from',
          ExpressionAttributeValues: { ':pk': { S: `audit#${tenant}` }, ':from': { S: `A#${page.since ?? ''}` } },
          ...(position !== undefined && { ExclusiveStartKey: { pk: { S: `audit#${tenant}` }, sk: { S: position } } }),
          Limit: page.limit,
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      this.#metrics.storageRequest({ operation: 'Query', capacityUnits: output.ConsumedCapacity?.CapacityUnits ?? 0 });
      const lastKey = output.LastEvaluatedKey?.sk?.S;
      return {
        items: (output.Items ?? []).map((item) => AuditEntry.parse(JSON.parse(item.entry?.S ?? 'null'))),
        nextCursor: lastKey === undefined ? undefined : encodeCursor(lastKey),
      };
    } catch (error) {
      throw translateAwsError(error);
    }
  }
}
