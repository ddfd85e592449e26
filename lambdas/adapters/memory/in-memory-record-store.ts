import type { RecordEvent } from '../../core/events/record-event.schema.ts';
import type { Namespace } from '../../core/namespaces/namespace.ts';
import { decodeCursor, encodeCursor } from '../../core/records/page-cursor.ts';
import { RevisionConflictError } from '../../core/records/record.errors.ts';
import type { Page, PageRequest, RecordRevision } from '../../core/records/record.schema.ts';
import type { OutboxEntry, RecordStore } from '../../core/records/record-store.port.ts';
import type { Clock } from '../../core/time/clock.ts';

const revisionKey = (namespaceKey: string, id: string, revision: number): string =>
  `${namespaceKey}\u0000${id}\u0000${String(revision).padStart(10, '0')}`;
const recordKey = (namespaceKey: string, id: string): string => `${namespaceKey}\u0000${id}`;

/**
 * The test double of the record store: same contract as the DynamoDB adapter (the contract suite runs
 * against both), kept in process memory, no encryption. Revisions are frozen copies, as immutable as the
 * items DynamoDB would hold.
 */
export class InMemoryRecordStore implements RecordStore {
  readonly #clock: Clock;
  readonly #revisions = new Map<string, RecordRevision>();
  readonly #heads = new Map<string, RecordRevision>();
  readonly #outbox = new Map<string, OutboxEntry>();

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
  }

  async append(revision: RecordRevision, event: RecordEvent): Promise<void> {
    const key = revisionKey(revision.namespace.key, revision.id, revision.revision);
    if (this.#revisions.has(key)) throw new RevisionConflictError();
    const stored = Object.freeze(structuredCloneRevision(revision));
    this.#revisions.set(key, stored);
    this.#outbox.set(key, { event: structuredClone(event), marker: key });
    await this.projectHead(stored);
  }

  async getHead(namespace: Namespace, id: string): Promise<RecordRevision | undefined> {
    let head: RecordRevision | undefined;
    for (const revision of this.#revisionsOf(namespace, id)) head = revision;
    return head && this.#live(head) ? head : undefined;
  }

  async getRevision(namespace: Namespace, id: string, revision: number): Promise<RecordRevision | undefined> {
    const found = this.#revisions.get(revisionKey(namespace.key, id, revision));
    return found && this.#live(found) ? found : undefined;
  }

  async listHeads(namespace: Namespace, page: PageRequest): Promise<Page<RecordRevision>> {
    const prefix = `${namespace.key}\u0000`;
    const ids = [...this.#heads.keys()]
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length))
      .sort();
    const after = page.cursor ? decodeCursor(page.cursor, (position) => position.startsWith('H#')).slice(2) : '';
    const live = ids
      .filter((id) => id > after)
      .map((id) => this.#heads.get(recordKey(namespace.key, id)))
      .filter((head): head is RecordRevision => head !== undefined && head.status === 'active' && this.#live(head));
    return this.#page(live, page.limit, (head) => `H#${head.id}`);
  }

  async listRevisions(namespace: Namespace, id: string, page: PageRequest): Promise<Page<RecordRevision>> {
    const marker = `R#${id}#`;
    const after = page.cursor
      ? Number(decodeCursor(page.cursor, (p) => /^R#.+#\d{10}$/.test(p) && p.startsWith(marker)).slice(marker.length))
      : 0;
    const revisions = this.#revisionsOf(namespace, id).filter((r) => r.revision > after && this.#live(r));
    return this.#page(revisions, page.limit, (r) => `${marker}${String(r.revision).padStart(10, '0')}`);
  }

  async projectHead(revision: RecordRevision): Promise<boolean> {
    const key = recordKey(revision.namespace.key, revision.id);
    const projected = this.#heads.get(key);
    if (projected && projected.revision >= revision.revision) return false;
    this.#heads.set(key, Object.freeze(structuredCloneRevision(revision)));
    return true;
  }

  async pendingEvents(limit: number): Promise<readonly OutboxEntry[]> {
    return [...this.#outbox.values()]
      .sort((a, b) => (a.event.occurred_at + a.event.event_id).localeCompare(b.event.occurred_at + b.event.event_id))
      .slice(0, limit);
  }

  async clearOutboxMarker(marker: string): Promise<void> {
    this.#outbox.delete(marker);
  }

  #revisionsOf(namespace: Namespace, id: string): RecordRevision[] {
    const prefix = `${namespace.key}\u0000${id}\u0000`;
    return [...this.#revisions.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, revision]) => revision);
  }

  #live(revision: RecordRevision): boolean {
    return Date.parse(revision.expiresAt) > this.#clock.now().getTime();
  }

  #page<T>(items: readonly T[], limit: number, position: (item: T) => string): Page<T> {
    const taken = items.slice(0, limit);
    const last = taken.at(-1);
    return {
      items: taken,
      nextCursor: items.length > limit && last !== undefined ? encodeCursor(position(last)) : undefined,
    };
  }
}

/** Namespaces are frozen and shared by reference; everything else is copied so callers cannot mutate stored state. */
const structuredCloneRevision = (revision: RecordRevision): RecordRevision => ({
  ...revision,
  content: structuredClone(revision.content),
  provenance: structuredClone(revision.provenance),
});
