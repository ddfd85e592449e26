import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Outbox, OutboxEntry } from '../../kernel/events/outbox.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { MemoryTableSchema } from './memory-table.ts';
import { type Item, type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

/*
 * The outbox as small marker items beside the revisions. A revision is put with its event (`outboxEvent`, for
 * good: the table's stream hands it to the relay); just before, the writer puts a marker item naming the
 * revision under one of a few `outbox#{shard}` partitions, sorted by when and which event. The relay deletes
 * the marker once the event is out; the sweep reads what is still marked, oldest first.
 *
 * Why not mark the revision itself, as this store once did: clearing an attribute of a revision is an update
 * billed by the revision's size (two write units for a typical note) plus a sparse index entry in and out —
 * four write units per event where a marker item's put and delete are two. The price is that a marker no
 * longer proves a commit: the revision put after it may have failed, so the sweep reads the revision back and
 * drops the markers of writes that never committed once no writer can still be committing them.
 */

/** How long a writer can take from its marker to its revision: beyond Lambda's longest timeout (15 minutes). */
export const UNCOMMITTED_MARKER_GRACE_MS = 16 * 60_000;

const MARKER_PREFIX = 'outbox#';

/** The key of the marker item of `event` (the event of a revision of the record `event.record_id`). */
const markerKeyOf = (event: RecordEvent): { pk: string; sk: string } => ({
  pk: `${MARKER_PREFIX}${shardOf(event.record_id)}`,
  sk: `${event.occurred_at}#${event.event_id}`,
});

/**
 * The marker item a writer puts before the revision `revision` that commits `event`. It expires with the
 * revision (`ttl`): the event of a record gone by then has nothing left to tell.
 */
export const outboxMarkerItemOf = (
  revision: { pk: string; sk: string; ttl?: number | undefined },
  event: RecordEvent,
): Item => ({
  ...markerKeyOf(event),
  revision: JSON.stringify([revision.pk, revision.sk]),
  ...(revision.ttl !== undefined && { ttl: revision.ttl }),
});

/** Opaque to everyone but the store: which marker item to delete. */
export const outboxMarkerOf = (event: RecordEvent): string => {
  const { pk, sk } = markerKeyOf(event);
  return encodeCursor(JSON.stringify([pk, sk]));
};

export class DynamoDbOutbox implements Outbox {
  readonly #table: MemoryTableClient;
  readonly #clock: Clock;

  constructor(table: MemoryTableClient, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  /**
   * The events of committed revisions still marked, oldest first. Each marker's revision is read back (strongly
   * consistent): a marker whose revision is not there, or is another writer's, is skipped — and deleted once
   * older than `UNCOMMITTED_MARKER_GRACE_MS`, since that write can no longer commit.
   */
  async pendingEvents(limit: number): Promise<readonly OutboxEntry[]> {
    const shards = Array.from({ length: MemoryTableSchema.outboxShards }, (_, shard) => `${MARKER_PREFIX}${shard}`);
    const perShard = await Promise.all(
      shards.map((pk) => this.#table.querySortKeys({ pk, from: '0', limit, consistent: false })),
    );
    const markers = perShard
      .flatMap(({ items }) => items)
      .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
      .slice(0, limit);
    const entries = await Promise.all(markers.map((marker) => this.#committedEntryOf(marker)));
    return entries.filter((entry): entry is OutboxEntry => entry !== undefined);
  }

  async clearOutboxMarker(marker: string): Promise<void> {
    const [pk, sk] = JSON.parse(decodeCursor(marker, (position) => position.startsWith('['))) as [string, string];
    if (!pk.startsWith(MARKER_PREFIX)) throw new TypeError('Not an outbox marker');
    await this.#table.delete({ pk, sk });
  }

  async #committedEntryOf(marker: Item): Promise<OutboxEntry | undefined> {
    const [pk, sk] = JSON.parse(String(marker.revision)) as [string, string];
    const revision = await this.#table.get({ pk, sk }, { projection: 'outboxEvent, writeId' });
    const [, eventId] = String(marker.sk).split('#');
    if (revision && typeof revision.outboxEvent === 'string' && revision.writeId === eventId) {
      const event = parseJsonAttribute(revision.outboxEvent, RecordEvent);
      return { event, marker: outboxMarkerOf(event) };
    }
    const markedAt = Date.parse(String(marker.sk).split('#')[0] ?? '');
    if (revision || this.#clock.now().getTime() - markedAt > UNCOMMITTED_MARKER_GRACE_MS)
      await this.#table.delete({ pk: String(marker.pk), sk: String(marker.sk) });
    return undefined;
  }
}

/** The attributes a committed revision carries for the relay: its (already validated) event. */
export const outboxAttributesOf = (event: RecordEvent): Item => ({ outboxEvent: JSON.stringify(event) });

/**
 * The outbox entry a newly written item carries, if it is a revision: from the table's stream, whose new image
 * has the attributes of the item as written.
 */
export const outboxEntryOfImage = (image: Record<string, AttributeValue>): OutboxEntry | undefined => {
  const { sk, outboxEvent } = unmarshall(image);
  if (typeof sk !== 'string' || !sk.startsWith('R#') || typeof outboxEvent !== 'string') return undefined;
  const event = parseJsonAttribute(outboxEvent, RecordEvent);
  return { event, marker: outboxMarkerOf(event) };
};

/** Spreads markers over a few partitions so the outbox never has one hot key. */
const shardOf = (recordId: string): number => {
  let sum = 0;
  for (const char of recordId) sum = (sum + char.charCodeAt(0)) % MemoryTableSchema.outboxShards;
  return sum;
};
