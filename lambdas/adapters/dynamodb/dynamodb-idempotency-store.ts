import { createHash } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyStore,
} from '../../kernel/idempotency/idempotency-store.port.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { ttlAttribute } from './memory-table.ts';

/**
 * Idempotency claims as items of the memory table, in the caller's own `idempotency` namespace. A claim is
 * a conditional put: the first request with a key wins; an expired claim may be taken over.
 */
export class DynamoDbIdempotencyStore implements IdempotencyStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Clock;
  readonly #metrics: Metrics;

  constructor(options: { client: DynamoDBClient; tableName: string; clock: Clock; metrics: Metrics }) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#clock = options.clock;
    this.#metrics = options.metrics;
  }

  async claim(namespace: Namespace, key: string, claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const itemKey = {
      pk: { S: namespace.key },
      sk: { S: `I#${createHash('sha256').update(key).digest('base64url')}` },
    };
    try {
      const output = await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            ...itemKey,
            fingerprint: { S: claim.fingerprint },
            recordId: { S: claim.recordId },
            expiresAt: { S: claim.expiresAt },
            ttl: ttlAttribute(Date.parse(claim.expiresAt)),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': { S: this.#clock.now().toISOString() } },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      this.#metrics.storageRequest({
        operation: 'PutItem',
        capacityUnits: output.ConsumedCapacity?.CapacityUnits ?? 0,
      });
      return { outcome: 'claimed' };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw translateAwsError(error);
      this.#metrics.storageRequest({ operation: 'PutItem', capacityUnits: 1 });
    }
    try {
      const existing = await this.#client.send(
        new GetItemCommand({
          TableName: this.#table,
          Key: itemKey,
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      this.#metrics.storageRequest({
        operation: 'GetItem',
        capacityUnits: existing.ConsumedCapacity?.CapacityUnits ?? 0,
      });
      const item = existing.Item;
      if (item?.pk?.S !== namespace.key || !item.fingerprint?.S || !item.recordId?.S || !item.expiresAt?.S) {
        this.#metrics.count('scope.violation_refused');
        throw new Error('Idempotency claim vanished or is malformed');
      }
      return {
        outcome: 'existing',
        fingerprint: item.fingerprint.S,
        recordId: item.recordId.S,
        expiresAt: item.expiresAt.S,
      };
    } catch (error) {
      throw translateAwsError(error);
    }
  }
}
