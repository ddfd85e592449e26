import type { OutboxEntry } from '../../kernel/events/outbox.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { RevisionConflictError } from '../../kernel/records/record.errors.ts';
import type { Page, PageRequest, RecordRevision } from '../../kernel/records/record.schema.ts';
import {
  type AppendOptions,
  assertJournalWrittenOnce,
  type RevisionStore,
} from '../../kernel/records/revision-store.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { DynamoDbHeadProjection } from './dynamodb-head-projection.ts';
import type { DynamoDbNamespaceDirectory } from './dynamodb-namespace-directory.ts';
import { outboxAttributesOf, outboxMarkerItemOf, outboxMarkerOf } from './dynamodb-outbox.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import type { MemoryTableClient } from './memory-table-client.ts';
import { type RevisionItems, revisionSortKey, revisionsPrefixOf } from './revision-items.ts';

export interface DynamoDbRevisionStoreOptions {
  table: MemoryTableClient;
  items: RevisionItems;
  directory: DynamoDbNamespaceDirectory;
  heads: DynamoDbHeadProjection;
  metrics: Metrics;
  clock: Clock;
  /**
   * Told of each committed outbox entry. Local mode wires its relay here, standing in for the table's
   * stream; in AWS the stream itself triggers the relay and nothing is wired.
   */
  onCommitted?: ((entry: OutboxEntry) => void) | undefined;
}

/**
 * The revisions, each its own item, appended with a single conditional put that carries the revision's event:
 * the commit point. An outbox marker item is put before it (so nothing committed goes unmarked), and the
 * writer then moves the head projection (a third item) forward; a head it cannot move now is moved by the head
 * consumer or the reconciler.
 */
export class DynamoDbRevisionStore implements RevisionStore {
  readonly #options: DynamoDbRevisionStoreOptions;

  constructor(options: DynamoDbRevisionStoreOptions) {
    this.#options = options;
  }

  async append(revision: RecordRevision, event: RecordEvent, options: AppendOptions = {}): Promise<void> {
    assertJournalWrittenOnce(revision);
    const { table, items, directory, heads } = this.#options;
    // Awaited once the item is ready; until then a rejection must not count as unhandled.
    options.after?.catch(() => undefined);
    const sortKey = revisionSortKey(revision.id, revision.revision);
    const published = RecordEvent.parse(event);
    const marker = outboxMarkerItemOf(
      { pk: revision.namespace.key, sk: sortKey, ttl: ttlEpochSeconds(Date.parse(revision.expiresAt)) },
      published,
      this.#options.clock.now(),
    );
    // Both before the commit: a committed revision's namespace is always findable by consumers and jobs, and its
    // event by the outbox's sweep. Started now, the marker's round trip overlaps the revision's encryption.
    const marked = Promise.all([directory.enter(revision.namespace), table.put(marker)]);
    marked.catch(() => undefined);
    let encoded: Awaited<ReturnType<RevisionItems['encode']>>;
    try {
      encoded = await items.encode(revision, sortKey);
      if (options.after) await options.after;
      await marked;
    } catch (error) {
      // No revision will name this marker: drop it now rather than leave it to the sweep's grace.
      await marked.catch(() => undefined);
      await table.delete({ pk: marker.pk, sk: marker.sk }).catch(() => undefined);
      throw error;
    }
    // `writeId` identifies this write on the item for good: see below, and the outbox's sweep.
    const item = { ...encoded, ...outboxAttributesOf(published), writeId: published.event_id };
    const committed = await table.put(item, { expression: 'attribute_not_exists(pk)' });
    // The SDK retries a put whose response was lost; if the first attempt committed, the retry meets our own
    // item. Ours is a success, anyone else's is the concurrency loss it looks like.
    if (!committed && !(await this.#isOurWrite(revision, published.event_id))) {
      // The sweep would drop the marker of a write that lost too; deleting it now spares it the read.
      await table.delete({ pk: marker.pk, sk: marker.sk }).catch(() => undefined);
      throw new RevisionConflictError();
    }
    try {
      // A journal record is its own head: one item per event, nothing to project.
      if (!revision.namespace.kind.journal) await heads.projectItem(encoded, revision.revision);
    } catch {
      // The revision is committed; reads of one record use the revisions themselves. A head projection
      // that could not be moved now is moved by the event relay or the reconciler, so the caller is told
      // the truth (success) rather than a 503 that would invite a duplicate write.
      this.#options.metrics.count('projection.deferred');
    }
    // Offered once the writer has moved the head (or failed to): a consumer that ran earlier would find the
    // head behind and read and project the revision a second time. The table stream, too, delivers later.
    this.#options.onCommitted?.({ event: published, marker: outboxMarkerOf(published) });
  }

  async #isOurWrite(revision: RecordRevision, writeId: string): Promise<boolean> {
    const item = await this.#options.table.get(
      { pk: revision.namespace.key, sk: revisionSortKey(revision.id, revision.revision) },
      { projection: 'writeId' },
    );
    return item?.writeId === writeId;
  }

  async getHead(namespace: Namespace, id: string): Promise<RecordRevision | undefined> {
    const { items } = await this.#options.table.querySortKeys({
      pk: namespace.key,
      prefix: revisionsPrefixOf(id),
      forward: false,
      limit: 1,
    });
    const [item] = items;
    if (!item) return undefined;
    const head = await this.#options.items.decode(namespace, item, id);
    return head && this.#options.items.live(head) ? head : undefined;
  }

  async getRevision(namespace: Namespace, id: string, revision: number): Promise<RecordRevision | undefined> {
    const { items } = await this.#options.table.query({
      where: 'pk = :pk AND sk = :sk',
      values: { ':pk': namespace.key, ':sk': revisionSortKey(id, revision) },
    });
    const [item] = items;
    const found = item && (await this.#options.items.decode(namespace, item, id));
    return found && this.#options.items.live(found) ? found : undefined;
  }

  listRevisions(namespace: Namespace, id: string, page: PageRequest): Promise<Page<RecordRevision>> {
    return this.#options.items.page(namespace, page, {
      prefix: revisionsPrefixOf(id),
      recordId: id,
      keep: () => true,
    });
  }
}
