import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Outbox, OutboxEntry } from '../../kernel/events/outbox.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { MemoryTableSchema } from './memory-table.ts';
import { type Item, type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

/*
 * The outbox as small marker items beside the revisions. Just before a revision is put, its writer puts a
 * marker item under one of a few `outbox#{shard}` partitions, sorted by when and which event, holding the event
 * and naming the revision; the revision names its marker (`outboxMarker`). The table's stream shows the relay
 * each revision as it is committed: the relay reads the marker it names, publishes its event and deletes it.
 * The sweep reads what is still marked, oldest first. The event (its actor, its idempotency key) is thus kept
 * in clear only until it is published, never on the revision.
 *
 * Why not mark the revision itself, as this store once did: clearing an attribute of a revision is an update
 * billed by the revision's size (two write units for a typical note) plus a sparse index entry in and out —
 * four write units per event where a marker item's put and delete are two (and a read, an eighth of a write's
 * price). The price is that a marker no longer proves a commit: the revision put after it may have failed, so
 * the sweep reads the revision back and drops the markers of writes that never committed once no writer can
 * still be committing them.
 */

/** How long a writer can take from its marker to its revision: beyond Lambda's longest timeout (15 minutes). */
export const UNCOMMITTED_MARKER_GRACE_MS = 16 * 60_000;

const MARKER_PREFIX = 'outbox#';
/** Markers of one shard the sweep reads per page, and the pages it reads past markers it cannot publish yet. */
const SWEEP_PAGE = 100;
const SWEEP_MAX_PAGES = 20;

interface MarkerKey {
  readonly pk: string;
  readonly sk: string;
}

const markerKeyOf = (event: RecordEvent): MarkerKey => ({
  pk: `${MARKER_PREFIX}${shardOf(event.record_id)}`,
  sk: `${event.occurred_at}#${event.event_id}`,
});

const encodeMarker = (key: MarkerKey): string => encodeCursor(JSON.stringify([key.pk, key.sk]));

/** Opaque to everyone but the store: which marker item an event has. */
export const outboxMarkerOf = (event: RecordEvent): string => encodeMarker(markerKeyOf(event));

/**
 * The marker item a writer puts, at `markedAt`, before the revision `revision` that commits `event`. It expires
 * with the revision (`ttl`): the event of a record gone by then has nothing left to tell.
 */
export const outboxMarkerItemOf = (
  revision: { pk: string; sk: string; ttl?: number | undefined },
  event: RecordEvent,
  markedAt: Date,
): Item => ({
  ...markerKeyOf(event),
  revision: JSON.stringify([revision.pk, revision.sk]),
  outboxEvent: JSON.stringify(event),
  markedAt: markedAt.toISOString(),
  ...(revision.ttl !== undefined && { ttl: revision.ttl }),
});

/** What a committed revision carries for the relay: which marker holds its event. */
export const outboxAttributesOf = (event: RecordEvent): Item => {
  const { pk, sk } = markerKeyOf(event);
  return { outboxMarker: JSON.stringify([pk, sk]) };
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
   * consistent): a marker whose revision is not there, or is another writer's, is skipped — and deleted once its
   * writer can no longer commit (`UNCOMMITTED_MARKER_GRACE_MS` after it was put), or at once when another write
   * holds its revision. Skipped markers do not count towards `limit`: the shard is read on past them.
   */
  async pendingEvents(
    limit: number,
    options: { readonly occurredBefore?: Date } = {},
  ): Promise<readonly OutboxEntry[]> {
    // Sort keys are `{occurred_at}#{event_id}`: an event at the very instant asked for is included.
    const before = `${options.occurredBefore?.toISOString() ?? '\uffff'}#\uffff`;
    const shards = Array.from({ length: MemoryTableSchema.outboxShards }, (_, shard) => `${MARKER_PREFIX}${shard}`);
    const perShard = await Promise.all(shards.map((pk) => this.#pendingOfShard(pk, before, limit)));
    return perShard
      .flat()
      .sort((a, b) => (a.event.occurred_at + a.event.event_id).localeCompare(b.event.occurred_at + b.event.event_id))
      .slice(0, limit);
  }

  async pendingEntryOf(marker: string): Promise<OutboxEntry | undefined> {
    const item = await this.#table.get({ ...markerKeyFrom(marker) });
    return item && typeof item.outboxEvent === 'string' ? { event: eventOf(item), marker } : undefined;
  }

  async clearOutboxMarker(marker: string): Promise<void> {
    await this.#table.delete({ ...markerKeyFrom(marker) });
  }

  async #pendingOfShard(pk: string, before: string, limit: number): Promise<OutboxEntry[]> {
    const found: OutboxEntry[] = [];
    let after: Item | undefined;
    for (let page = 0; page < SWEEP_MAX_PAGES && found.length < limit; page++) {
      const { items, lastKey } = await this.#table.query({
        where: 'pk = :pk AND sk <= :before',
        values: { ':pk': pk, ':before': before },
        after,
        limit: SWEEP_PAGE,
        consistent: false,
      });
      const entries = await Promise.all(items.map((marker) => this.#committedEntryOf(marker)));
      for (const entry of entries) if (entry) found.push(entry);
      if (!lastKey) break;
      after = lastKey;
    }
    return found;
  }

  async #committedEntryOf(marker: Item): Promise<OutboxEntry | undefined> {
    const [pk, sk] = JSON.parse(String(marker.revision)) as [string, string];
    const key = { pk: String(marker.pk), sk: String(marker.sk) };
    const event = eventOf(marker);
    const revision = await this.#table.get({ pk, sk }, { projection: 'writeId' });
    if (revision?.writeId === event.event_id) return { event, marker: encodeMarker(key) };
    const markedAt = Date.parse(String(marker.markedAt ?? event.occurred_at));
    if (revision || this.#clock.now().getTime() - markedAt > UNCOMMITTED_MARKER_GRACE_MS) await this.#table.delete(key);
    return undefined;
  }
}

/**
 * The marker a newly written item names, if it is a revision: from the table's stream, whose new image has the
 * attributes of the item as written.
 */
export const outboxMarkerOfImage = (image: Record<string, AttributeValue>): string | undefined => {
  const { sk, outboxMarker } = unmarshall(image);
  if (typeof sk !== 'string' || !sk.startsWith('R#') || typeof outboxMarker !== 'string') return undefined;
  const [pk, markerSk] = JSON.parse(outboxMarker) as [unknown, unknown];
  if (typeof pk !== 'string' || !pk.startsWith(MARKER_PREFIX) || typeof markerSk !== 'string') return undefined;
  return encodeMarker({ pk, sk: markerSk });
};

/** A marker's item key; anything but a marker is refused, so no other item can be read or deleted through one. */
const markerKeyFrom = (marker: string): MarkerKey => {
  const [pk, sk] = JSON.parse(decodeCursor(marker, (position) => position.startsWith('['))) as [unknown, unknown];
  if (typeof pk !== 'string' || !pk.startsWith(MARKER_PREFIX) || typeof sk !== 'string')
    throw new TypeError('Not an outbox marker');
  return { pk, sk };
};

const eventOf = (marker: Item): RecordEvent => parseJsonAttribute(String(marker.outboxEvent), RecordEvent);

/** Spreads markers over a few partitions so the outbox never has one hot key. */
const shardOf = (recordId: string): number => {
  let sum = 0;
  for (const char of recordId) sum = (sum + char.charCodeAt(0)) % MemoryTableSchema.outboxShards;
  return sum;
};
