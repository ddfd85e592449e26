import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ContentCipher } from '../../kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../kernel/crypto/crypto.errors.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { NamespaceDirectory, NamespaceEntry } from '../../kernel/records/namespace-directory.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import { RevisionConflictError } from '../../kernel/records/record.errors.ts';
import {
  type Page,
  type PageRequest,
  type RecordRevision,
  RecordStatus,
  RevisionPayload,
} from '../../kernel/records/record.schema.ts';
import {
  type AppendOptions,
  assertJournalWrittenOnce,
  type OutboxEntry,
  type RecordStore,
} from '../../kernel/records/record-store.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { MemoryTableSchema, ttlAttribute } from './memory-table.ts';

type Item = Record<string, AttributeValue>;

const PROJECTED_MEMO_CAPACITY = 10_000;
const revisionSortKey = (id: string, revision: number): string => `R#${id}#${String(revision).padStart(10, '0')}`;
const headSortKey = (id: string): string => `H#${id}`;
/** Pages through a filtered query are refilled at most this many times before a partial page is returned. */
const MAX_PAGE_REFILLS = 5;

export interface DynamoDbRecordStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Required: content is encrypted before it reaches the table, or the store cannot be built. */
  cipher: ContentCipher;
  clock: Clock;
  metrics: Metrics;
  /**
   * Told of each committed outbox entry. Local mode wires its relay here, standing in for the table's
   * stream; in AWS the stream itself triggers the relay and nothing is wired.
   */
  onCommitted?: (entry: OutboxEntry) => void;
}

/**
 * The record store on one DynamoDB table: each revision is its own item, appended with a single conditional
 * put; the head projection is a second item moved forward only. Content and provenance are encrypted with
 * the tenant, namespace and record id as encryption context; every item read back is re-verified against
 * the namespace and record that were asked for before it is decrypted.
 */
export class DynamoDbRecordStore implements RecordStore, NamespaceDirectory {
  /** Namespaces this process already wrote to the directory: one conditional put per namespace per process. */
  readonly #known = new Set<string>();
  readonly #resolved = new Map<string, NamespaceEntry>();
  /** Head revisions this process projected, by namespace key and record id (bounded; see projectedRevision). */
  readonly #projectedHere = new Map<string, number>();
  readonly #onCommitted: ((entry: OutboxEntry) => void) | undefined;
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #cipher: ContentCipher;
  readonly #clock: Clock;
  readonly #metrics: Metrics;

  constructor(options: DynamoDbRecordStoreOptions) {
    if (!options.cipher) throw new TypeError('DynamoDbRecordStore needs a cipher: records are encrypted or not stored');
    if (!options.tableName) throw new TypeError('DynamoDbRecordStore needs a table name');
    this.#client = options.client;
    this.#table = options.tableName;
    this.#cipher = options.cipher;
    this.#clock = options.clock;
    this.#metrics = options.metrics;
    this.#onCommitted = options.onCommitted;
  }

  async append(revision: RecordRevision, event: RecordEvent, options: AppendOptions = {}): Promise<void> {
    const journal = revision.namespace.kind.journal;
    assertJournalWrittenOnce(revision, journal);
    // Awaited once the item is ready; until then a rejection must not count as unhandled.
    options.after?.catch(() => undefined);
    const item = await this.#toItem(revision, revisionSortKey(revision.id, revision.revision));
    item.outboxShard = { S: outboxShardOf(revision.id) };
    item.outboxAt = { S: `${event.occurred_at}#${event.event_id}` };
    const published = RecordEvent.parse(event);
    item.outboxEvent = { S: JSON.stringify(published) };
    // Identifies this write on the item for good (the outbox marker is cleared later): see the catch below.
    item.writeId = { S: event.event_id };
    if (options.after) await options.after;
    // Before the commit, so a committed revision's namespace is always findable by consumers and jobs.
    await this.#enterInDirectory(revision.namespace);
    try {
      await this.#send('PutItem', () =>
        this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: item,
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The SDK retries a put whose response was lost; if the first attempt committed, the retry meets our own
      // item. Ours is a success, anyone else's is the concurrency loss it looks like.
      if (!(await this.#isOurWrite(revision, event.event_id))) throw new RevisionConflictError({ cause: error });
    }
    // The entry as a stream record would carry it; built from what was just written rather than parsed back.
    const committed: OutboxEntry = {
      event: published,
      marker: outboxMarkerOf(revision.namespace.key, revisionSortKey(revision.id, revision.revision)),
    };
    delete item.outboxShard;
    delete item.outboxAt;
    delete item.outboxEvent;
    delete item.writeId;
    try {
      // A journal record is its own head: one item per event, nothing to project.
      if (!journal) await this.#projectItem(item, revision.revision);
    } catch {
      // The revision is committed; reads of one record use the revisions themselves. A head projection
      // that could not be moved now is moved by the event relay or the reconciler, so the caller is told
      // the truth (success) rather than a 503 that would invite a duplicate write.
      this.#metrics.count('projection.deferred');
    }
    // Offered once the writer has moved the head (or failed to): a consumer that ran earlier would find the
    // head behind and read and project the revision a second time. The table stream, too, delivers later.
    this.#onCommitted?.(committed);
  }

  async #isOurWrite(revision: RecordRevision, writeId: string): Promise<boolean> {
    const output = await this.#send('GetItem', () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#table,
          Key: { pk: { S: revision.namespace.key }, sk: { S: revisionSortKey(revision.id, revision.revision) } },
          ProjectionExpression: 'writeId',
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    return output.Item?.writeId?.S === writeId;
  }

  async getHead(namespace: Namespace, id: string): Promise<RecordRevision | undefined> {
    const { items } = await this.#query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': { S: namespace.key }, ':prefix': { S: `R#${id}#` } },
      ScanIndexForward: false,
      Limit: 1,
    });
    const [item] = items;
    if (!item) return undefined;
    const head = await this.#fromItem(namespace, item, id);
    return head && this.#live(head) ? head : undefined;
  }

  async getRevision(namespace: Namespace, id: string, revision: number): Promise<RecordRevision | undefined> {
    const { items } = await this.#query({
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': { S: namespace.key }, ':sk': { S: revisionSortKey(id, revision) } },
    });
    const [item] = items;
    const found = item && (await this.#fromItem(namespace, item, id));
    return found && this.#live(found) ? found : undefined;
  }

  listHeads(namespace: Namespace, page: PageRequest): Promise<Page<RecordRevision>> {
    return this.#filteredPage(
      namespace,
      page,
      headPrefixOf(namespace),
      undefined,
      (revision) => revision.status === 'active',
    );
  }

  listRevisions(namespace: Namespace, id: string, page: PageRequest): Promise<Page<RecordRevision>> {
    return this.#filteredPage(namespace, page, `R#${id}#`, id, () => true);
  }

  listExpiredHeads(namespace: Namespace, page: PageRequest & { expiredBefore: string }): Promise<Page<RecordRevision>> {
    return this.#filteredPage(
      namespace,
      page,
      headPrefixOf(namespace),
      undefined,
      (head) => head.expiresAt <= page.expiredBefore,
      {
        includeExpired: true,
      },
    );
  }

  async listRecordIds(namespace: Namespace, page: PageRequest): Promise<Page<string>> {
    const ids: string[] = [];
    let position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith('R#')) : undefined;
    // Revisions of one record are adjacent; skip past the last one of each id seen, so a page holds distinct ids.
    while (ids.length < page.limit) {
      const { items } = await this.#query({
        KeyConditionExpression: 'pk = :pk AND sk > :after',
        ExpressionAttributeValues: { ':pk': { S: namespace.key }, ':after': { S: position ?? 'R#' } },
        ProjectionExpression: 'recordId, sk',
        Limit: 1,
      });
      const id = items[0]?.recordId?.S;
      if (!id || !items[0]?.sk?.S?.startsWith('R#')) {
        position = undefined;
        break;
      }
      ids.push(id);
      position = `R#${id}#~`;
    }
    return { items: ids, nextCursor: position === undefined ? undefined : encodeCursor(position) };
  }

  async purge(namespace: Namespace, id: string): Promise<number> {
    this.#projectedHere.delete(`${namespace.key}\u0000${id}`);
    const sortKeys: string[] = [];
    let position: string | undefined;
    do {
      const page = await this.#query({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: namespace.key }, ':prefix': { S: `R#${id}#` } },
        ...(position !== undefined && { ExclusiveStartKey: { pk: { S: namespace.key }, sk: { S: position } } }),
        ProjectionExpression: 'sk',
      });
      sortKeys.push(...page.items.map((item) => item.sk?.S ?? '').filter(Boolean));
      position = page.lastKey;
    } while (position !== undefined);
    // The head last: until every revision is gone, the sweep can still find the record through it.
    if (!namespace.kind.journal) sortKeys.push(headSortKey(id));
    let removed = 0;
    for (const sortKey of sortKeys) {
      const output = await this.#send('DeleteItem', () =>
        this.#client.send(
          new DeleteItemCommand({
            TableName: this.#table,
            Key: { pk: { S: namespace.key }, sk: { S: sortKey } },
            ReturnValues: 'ALL_OLD',
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
      if (output.Attributes) removed += 1;
    }
    return removed;
  }

  async resolve(tenant: string, hash: string): Promise<NamespaceEntry | undefined> {
    // Directory entries never change once written: a resolved hash is kept for the life of the process.
    const cached = this.#resolved.get(`${tenant}#${hash}`);
    if (cached) return cached;
    const output = await this.#send('GetItem', () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#table,
          Key: { pk: { S: DIRECTORY_PARTITION }, sk: { S: `${tenant}#${hash}` } },
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    const entry = directoryEntryOf(output.Item);
    if (entry) this.#resolved.set(`${tenant}#${hash}`, entry);
    return entry;
  }

  async list(page: PageRequest & { tenant?: string | undefined }): Promise<Page<NamespaceEntry>> {
    const prefix = page.tenant === undefined ? '' : `${page.tenant}#`;
    const position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith(prefix)) : undefined;
    const { items, lastKey } = await this.#query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': { S: DIRECTORY_PARTITION }, ':prefix': { S: prefix } },
      ...(position !== undefined && { ExclusiveStartKey: { pk: { S: DIRECTORY_PARTITION }, sk: { S: position } } }),
      Limit: page.limit,
    });
    return {
      items: items.map(directoryEntryOf).filter((entry): entry is NamespaceEntry => entry !== undefined),
      nextCursor: lastKey === undefined ? undefined : encodeCursor(lastKey),
    };
  }

  async #enterInDirectory(namespace: Namespace): Promise<void> {
    if (this.#known.has(namespace.key)) return;
    try {
      await this.#send('PutItem', () =>
        this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: {
              pk: { S: DIRECTORY_PARTITION },
              sk: { S: `${namespace.tenant}#${namespace.hash}` },
              namespaceKey: { S: namespace.key },
              tenant: { S: namespace.tenant },
              hash: { S: namespace.hash },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    this.#known.add(namespace.key);
  }

  async projectedRevision(namespace: Namespace, id: string): Promise<number | undefined> {
    // Heads only move forward (until a purge, which forgets the memo): a revision this process projected is
    // a lower bound of the projected one, and enough for the head consumer's usual question.
    const projectedHere = this.#projectedHere.get(`${namespace.key}\u0000${id}`);
    if (projectedHere !== undefined) return projectedHere;
    // A journal record's one revision is its head.
    const sortKey = namespace.kind.journal ? revisionSortKey(id, 1) : headSortKey(id);
    const output = await this.#send('GetItem', () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#table,
          Key: { pk: { S: namespace.key }, sk: { S: sortKey } },
          ProjectionExpression: 'revision',
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    const revision = output.Item?.revision?.N;
    return revision === undefined ? undefined : Number(revision);
  }

  async projectHead(revision: RecordRevision): Promise<boolean> {
    if (revision.namespace.kind.journal) return false;
    return this.#projectItem(await this.#toItem(revision, headSortKey(revision.id)), revision.revision);
  }

  async pendingEvents(limit: number): Promise<readonly OutboxEntry[]> {
    const shards = Array.from({ length: MemoryTableSchema.outboxShards }, (_, shard) => `outbox#${shard}`);
    const perShard = await Promise.all(
      shards.map((shard) =>
        this.#query({
          IndexName: MemoryTableSchema.outboxIndex.name,
          KeyConditionExpression: 'outboxShard = :shard',
          ExpressionAttributeValues: { ':shard': { S: shard } },
          Limit: limit,
          ConsistentRead: false,
        }),
      ),
    );
    return perShard
      .flatMap(({ items }) => items)
      .sort((a, b) => (a.outboxAt?.S ?? '').localeCompare(b.outboxAt?.S ?? ''))
      .slice(0, limit)
      .map((item) => outboxEntryOfItem(item) as OutboxEntry);
  }

  async clearOutboxMarker(marker: string): Promise<void> {
    const [pk, sk] = JSON.parse(decodeCursor(marker, (position) => position.startsWith('['))) as [string, string];
    try {
      await this.#send('UpdateItem', () =>
        this.#client.send(
          new UpdateItemCommand({
            TableName: this.#table,
            Key: { pk: { S: pk }, sk: { S: sk } },
            UpdateExpression: 'REMOVE outboxShard, outboxAt, outboxEvent',
            ConditionExpression: 'attribute_exists(pk)',
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  #rememberProjected(namespaceKey: string, id: string, revision: number): void {
    if (this.#projectedHere.size >= PROJECTED_MEMO_CAPACITY) this.#projectedHere.clear();
    const key = `${namespaceKey}\u0000${id}`;
    this.#projectedHere.set(key, Math.max(revision, this.#projectedHere.get(key) ?? 0));
  }

  /** Forward-only: the head item is replaced only by a greater revision, so replays and races are harmless. */
  async #projectItem(item: Item, revision: number): Promise<boolean> {
    const head: Item = { ...item, sk: { S: headSortKey(item.recordId?.S ?? '') } };
    try {
      await this.#send('PutItem', () =>
        this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: head,
            ConditionExpression: 'attribute_not_exists(pk) OR revision < :revision',
            ExpressionAttributeValues: { ':revision': { N: String(revision) } },
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
      this.#rememberProjected(head.pk?.S ?? '', item.recordId?.S ?? '', revision);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * Queries `prefix` in the namespace and keeps what `keep` accepts and has not expired, refilling the page
   * (a bounded number of times) when the filter leaves it short.
   */
  async #filteredPage(
    namespace: Namespace,
    page: PageRequest,
    prefix: string,
    recordId: string | undefined,
    keep: (revision: RecordRevision) => boolean,
    options: { includeExpired?: boolean } = {},
  ): Promise<Page<RecordRevision>> {
    let position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith(prefix)) : undefined;
    const kept: RecordRevision[] = [];
    for (let refill = 0; refill < MAX_PAGE_REFILLS && kept.length < page.limit; refill++) {
      const { items, lastKey } = await this.#query({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: namespace.key }, ':prefix': { S: prefix } },
        ...(position !== undefined && { ExclusiveStartKey: { pk: { S: namespace.key }, sk: { S: position } } }),
        Limit: page.limit - kept.length,
        ScanIndexForward: page.descending !== true,
      });
      // Decrypted side by side: in AWS each is a KMS round trip, and they do not depend on each other.
      const revisions = await Promise.all(
        items.map((item) => this.#fromItem(namespace, item, recordId ?? item.recordId?.S ?? '')),
      );
      for (const revision of revisions) {
        if (revision && (options.includeExpired || this.#live(revision)) && keep(revision)) kept.push(revision);
      }
      position = lastKey;
      if (position === undefined) break;
    }
    return { items: kept, nextCursor: position === undefined ? undefined : encodeCursor(position) };
  }

  async #query(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ items: Item[]; lastKey?: string }> {
    const output = await this.#send('Query', () =>
      this.#client.send(
        new QueryCommand({ TableName: this.#table, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL', ...input }),
      ),
    );
    return { items: output.Items ?? [], lastKey: output.LastEvaluatedKey?.sk?.S };
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

  async #toItem(revision: RecordRevision, sortKey: string): Promise<Item> {
    const payload: RevisionPayload = { content: revision.content, provenance: revision.provenance };
    const ciphertext = await this.#cipher.encrypt(Buffer.from(JSON.stringify(payload), 'utf8'), {
      tenant: revision.namespace.tenant,
      namespace: revision.namespace.key,
      recordId: revision.id,
    });
    return {
      pk: { S: revision.namespace.key },
      sk: { S: sortKey },
      recordId: { S: revision.id },
      revision: { N: String(revision.revision) },
      status: { S: revision.status },
      createdAt: { S: revision.createdAt },
      updatedAt: { S: revision.updatedAt },
      expiresAt: { S: revision.expiresAt },
      ttl: ttlAttribute(Date.parse(revision.expiresAt)),
      payload: { B: ciphertext },
    };
  }

  /**
   * Defence in depth: the item must carry the namespace and record that were asked for, and its ciphertext
   * must decrypt under exactly that context. Anything else is refused and counted, never returned.
   */
  async #fromItem(namespace: Namespace, item: Item, expectedId: string): Promise<RecordRevision | undefined> {
    const id = item.recordId?.S;
    const revision = Number(item.revision?.N);
    const sortKey = item.sk?.S ?? '';
    const inScope =
      item.pk?.S === namespace.key &&
      id === expectedId &&
      Number.isSafeInteger(revision) &&
      (sortKey === headSortKey(id) || sortKey === revisionSortKey(id, revision));
    if (!inScope || !item.payload?.B) {
      this.#metrics.count('scope.violation_refused');
      return undefined;
    }
    let plaintext: Uint8Array;
    try {
      plaintext = await this.#cipher.decrypt(item.payload.B, {
        tenant: namespace.tenant,
        namespace: namespace.key,
        recordId: id,
      });
    } catch (error) {
      if (!(error instanceof CiphertextContextMismatchError)) throw error;
      this.#metrics.count('crypto.context_mismatch_refused');
      return undefined;
    }
    const payload = RevisionPayload.parse(JSON.parse(Buffer.from(plaintext).toString('utf8')));
    return {
      id,
      namespace,
      revision,
      status: RecordStatus.parse(item.status?.S),
      content: payload.content,
      provenance: payload.provenance,
      createdAt: item.createdAt?.S ?? '',
      updatedAt: item.updatedAt?.S ?? '',
      expiresAt: item.expiresAt?.S ?? '',
    };
  }

  #live(revision: RecordRevision): boolean {
    return Date.parse(revision.expiresAt) > this.#clock.now().getTime();
  }
}

/**
 * The outbox entry an item carries, if it is a revision still marked for publication: from a query of the
 * outbox index, or from the table's stream (whose new image has the same attributes).
 */
export const outboxEntryOfItem = (item: Item): OutboxEntry | undefined => {
  const pk = item.pk?.S;
  const sk = item.sk?.S;
  const event = item.outboxEvent?.S;
  if (!pk || !sk?.startsWith('R#') || !event) return undefined;
  return { event: RecordEvent.parse(JSON.parse(event)), marker: outboxMarkerOf(pk, sk) };
};

/** Opaque to everyone but the store: which item to clear. */
const outboxMarkerOf = (pk: string, sk: string): string => encodeCursor(JSON.stringify([pk, sk]));

/** Where a namespace's heads are: the head items, or for a journal kind its records' single revisions. */
const headPrefixOf = (namespace: Namespace): string => (namespace.kind.journal ? 'R#' : 'H#');

/** The partition of the namespace directory: one item per namespace, `{tenant}#{hash}` → key. */
const DIRECTORY_PARTITION = 'directory';

const directoryEntryOf = (item: Item | undefined): NamespaceEntry | undefined =>
  item?.namespaceKey?.S && item.tenant?.S && item.hash?.S
    ? { key: item.namespaceKey.S, tenant: item.tenant.S, hash: item.hash.S }
    : undefined;

/** Spreads unpublished revisions over a few index partitions so the outbox index never has one hot key. */
const outboxShardOf = (recordId: string): string => {
  let sum = 0;
  for (const char of recordId) sum = (sum + char.charCodeAt(0)) % MemoryTableSchema.outboxShards;
  return `outbox#${sum}`;
};
