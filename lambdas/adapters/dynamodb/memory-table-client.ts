import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type * as z from 'zod';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { InvalidCursorError } from '../../kernel/records/record.errors.ts';
import { isStartKeyRefusal, translateAwsError } from '../aws-service-errors.ts';

/**
 * An item of the memory table as plain values; marshalled to and from DynamoDB's attribute values here only.
 * `ttl` is epoch seconds as a number: DynamoDB's expiry ignores an attribute of any other type, silently.
 */
export type Item = Record<string, unknown> & { readonly ttl?: number };

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

export interface QueryRequest {
  /** The key condition, over `:`-named values. */
  readonly where: string;
  readonly values: Item;
  readonly index?: string | undefined;
  /** Continue after this key (the `lastKey` of the page before). */
  readonly after?: Item | undefined;
  readonly limit?: number | undefined;
  /** Ascending sort key unless false. */
  readonly forward?: boolean | undefined;
  readonly projection?: string | undefined;
  /** Strongly consistent unless false (a global index cannot be). */
  readonly consistent?: boolean | undefined;
}

/**
 * Sort keys of one partition, in order: those beginning with `prefix`, or those from `from` on. A page continues
 * after the sort key `after` (the `lastSortKey` of the page before).
 */
export type SortKeyQuery = (
  | { readonly prefix: string; readonly from?: never }
  | { readonly from: string; readonly prefix?: never }
) &
  Pick<QueryRequest, 'limit' | 'forward' | 'projection' | 'consistent'> & {
    readonly pk: string;
    readonly after?: string | undefined;
  };

/**
 * The memory table as every DynamoDB adapter reaches it: items in and out as plain values (`util-dynamodb`),
 * each request's consumed capacity counted (`ReturnConsumedCapacity`), a failed condition answered as
 * `false` (it still costs a write unit, which DynamoDB does not report on the error), and every other AWS
 * failure translated once: retryable ones become ServiceUnavailable, the rest stay what they are.
 */
export class MemoryTableClient {
  readonly tableName: string;
  readonly #client: DynamoDBClient;
  readonly #metrics: Metrics;

  constructor(options: { client: DynamoDBClient; tableName: string; metrics: Metrics }) {
    if (!options.tableName) throw new TypeError('The memory table needs a name');
    this.#client = options.client;
    this.tableName = options.tableName;
    this.#metrics = options.metrics;
  }

  /** Puts `item`; false when `condition` did not hold (nothing was written). */
  async put(item: Item, condition?: { readonly expression: string; readonly values?: Item }): Promise<boolean> {
    if (item.ttl !== undefined && !Number.isSafeInteger(item.ttl))
      throw new TypeError('An item’s ttl must be whole epoch seconds');
    return this.#conditional('PutItem', () =>
      this.#client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: marshall(item, MARSHALL),
          ...(condition && {
            ConditionExpression: condition.expression,
            ...(condition.values && { ExpressionAttributeValues: marshall(condition.values, MARSHALL) }),
          }),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
  }

  async get(key: Item, options: { readonly projection?: string } = {}): Promise<Item | undefined> {
    const output = await this.#send('GetItem', () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: marshall(key, MARSHALL),
          ...(options.projection && { ProjectionExpression: options.projection }),
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    return output.Item && unmarshall(output.Item);
  }

  async query(request: QueryRequest): Promise<{ items: Item[]; lastKey?: Item | undefined }> {
    const output = await this.#send('Query', async () => {
      try {
        return await this.#client.send(
          new QueryCommand({
            TableName: this.tableName,
            ...(request.index && { IndexName: request.index }),
            KeyConditionExpression: request.where,
            ExpressionAttributeValues: marshall(request.values, MARSHALL),
            ...(request.after && { ExclusiveStartKey: marshall(request.after, MARSHALL) }),
            ...(request.limit !== undefined && { Limit: request.limit }),
            ...(request.forward === false && { ScanIndexForward: false }),
            ...(request.projection && { ProjectionExpression: request.projection }),
            ConsistentRead: request.consistent ?? true,
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
      } catch (error) {
        // Each listing checks its cursor's position before it gets here; this is the defence in depth.
        if (request.after && isStartKeyRefusal(error)) throw new InvalidCursorError({ cause: error });
        throw error;
      }
    });
    return {
      items: (output.Items ?? []).map((item) => unmarshall(item)),
      lastKey: output.LastEvaluatedKey && unmarshall(output.LastEvaluatedKey),
    };
  }

  /** A page of the partition `pk`'s items over a range of sort keys; `lastSortKey` is where the next page starts. */
  async querySortKeys(request: SortKeyQuery): Promise<{ items: Item[]; lastSortKey?: string | undefined }> {
    const { items, lastKey } = await this.query({
      ...(request.prefix === undefined
        ? { where: 'pk = :pk AND sk >= :from', values: { ':pk': request.pk, ':from': request.from } }
        : { where: 'pk = :pk AND begins_with(sk, :prefix)', values: { ':pk': request.pk, ':prefix': request.prefix } }),
      after: request.after === undefined ? undefined : { pk: request.pk, sk: request.after },
      limit: request.limit,
      forward: request.forward,
      projection: request.projection,
      consistent: request.consistent,
    });
    return { items, lastSortKey: typeof lastKey?.sk === 'string' ? lastKey.sk : undefined };
  }

  /**
   * Updates the item at `key`; false when `condition` did not hold. The expressions' `:`-named `values` and
   * `#`-named `names` (for attribute names DynamoDB reserves, such as `ttl`) go with them.
   */
  async update(
    key: Item,
    expression: string,
    condition?: string,
    placeholders: { readonly values?: Item; readonly names?: Readonly<Record<string, string>> } = {},
  ): Promise<boolean> {
    return this.#conditional('UpdateItem', () =>
      this.#client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: marshall(key, MARSHALL),
          UpdateExpression: expression,
          ...(condition && { ConditionExpression: condition }),
          ...(placeholders.values && { ExpressionAttributeValues: marshall(placeholders.values, MARSHALL) }),
          ...(placeholders.names && { ExpressionAttributeNames: { ...placeholders.names } }),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
  }

  /** Deletes the item at `key`; true when there was one. */
  async delete(key: Item): Promise<boolean> {
    const output = await this.#send('DeleteItem', () =>
      this.#client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: marshall(key, MARSHALL),
          ReturnValues: 'ALL_OLD',
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    return output.Attributes !== undefined;
  }

  async #conditional(operation: string, call: () => Promise<{ ConsumedCapacity?: { CapacityUnits?: number } }>) {
    try {
      await this.#send(operation, call);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async #send<T extends { ConsumedCapacity?: { CapacityUnits?: number } | undefined }>(
    operation: string,
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      const output = await call();
      this.#metrics.storageRequest({ operation, capacityUnits: output.ConsumedCapacity?.CapacityUnits ?? 0 });
      return output;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // A failed condition still costs a write unit; DynamoDB does not report it on the error.
        this.#metrics.storageRequest({ operation, capacityUnits: 1 });
        throw error;
      }
      throw translateAwsError(error);
    }
  }
}

/**
 * An attribute holding a JSON document, checked with its schema before anything of it is trusted; an attribute
 * that is not a string is read as `null`, which the schema refuses.
 */
export const parseJsonAttribute = <Schema extends z.ZodType>(value: unknown, schema: Schema): z.output<Schema> =>
  schema.parse(JSON.parse(typeof value === 'string' ? value : 'null'));
