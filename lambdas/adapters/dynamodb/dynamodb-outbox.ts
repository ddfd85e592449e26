import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Outbox, OutboxEntry } from '../../kernel/events/outbox.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import { MemoryTableSchema } from './memory-table.ts';
import { type Item, type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

/**
 * The outbox as a marker on each committed revision item: `outboxShard`/`outboxAt` index it in the sparse
 * outbox index and `outboxEvent` holds the event, until the relay clears them once published.
 */
export class DynamoDbOutbox implements Outbox {
  readonly #table: MemoryTableClient;

  constructor(table: MemoryTableClient) {
    this.#table = table;
  }

  async pendingEvents(limit: number): Promise<readonly OutboxEntry[]> {
    const shards = Array.from({ length: MemoryTableSchema.outboxShards }, (_, shard) => `outbox#${shard}`);
    const perShard = await Promise.all(
      shards.map((shard) =>
        this.#table.query({
          index: MemoryTableSchema.outboxIndex.name,
          where: 'outboxShard = :shard',
          values: { ':shard': shard },
          limit,
          consistent: false,
        }),
      ),
    );
    return perShard
      .flatMap(({ items }) => items)
      .sort((a, b) => String(a.outboxAt ?? '').localeCompare(String(b.outboxAt ?? '')))
      .slice(0, limit)
      .map(entryOf)
      .filter((entry): entry is OutboxEntry => entry !== undefined);
  }

  async clearOutboxMarker(marker: string): Promise<void> {
    const [pk, sk] = JSON.parse(decodeCursor(marker, (position) => position.startsWith('['))) as [string, string];
    // A marker of an item purged meanwhile has nothing left to clear.
    await this.#table.update({ pk, sk }, 'REMOVE outboxShard, outboxAt, outboxEvent', 'attribute_exists(pk)');
  }
}

/** The attributes that mark a committed revision for the outbox, with its (already validated) event. */
export const outboxAttributesOf = (recordId: string, event: RecordEvent): Item => ({
  outboxShard: outboxShardOf(recordId),
  outboxAt: `${event.occurred_at}#${event.event_id}`,
  outboxEvent: JSON.stringify(event),
});

/** Opaque to everyone but the store: which item to clear. */
export const outboxMarkerOf = (pk: string, sk: string): string => encodeCursor(JSON.stringify([pk, sk]));

const entryOf = (item: Item): OutboxEntry | undefined => {
  const { pk, sk, outboxEvent } = item;
  if (typeof pk !== 'string' || typeof sk !== 'string' || !sk.startsWith('R#') || typeof outboxEvent !== 'string')
    return undefined;
  return { event: parseJsonAttribute(outboxEvent, RecordEvent), marker: outboxMarkerOf(pk, sk) };
};

/**
 * The outbox entry an item carries, if it is a revision still marked for publication: from the table's stream,
 * whose new image has the attributes of the item as written.
 */
export const outboxEntryOfImage = (image: Record<string, AttributeValue>): OutboxEntry | undefined =>
  entryOf(unmarshall(image));

/** Spreads unpublished revisions over a few index partitions so the outbox index never has one hot key. */
const outboxShardOf = (recordId: string): string => {
  let sum = 0;
  for (const char of recordId) sum = (sum + char.charCodeAt(0)) % MemoryTableSchema.outboxShards;
  return `outbox#${sum}`;
};
