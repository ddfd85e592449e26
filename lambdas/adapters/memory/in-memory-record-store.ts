import type { Outbox, OutboxEntry } from '../../kernel/events/outbox.port.ts';
import type { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { HeadProjection } from '../../kernel/records/head-projection.port.ts';
import type { NamespaceDirectory, NamespaceEntry } from '../../kernel/records/namespace-directory.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import { RevisionConflictError } from '../../kernel/records/record.errors.ts';
import type { Page, PageRequest, RecordRevision } from '../../kernel/records/record.schema.ts';
import type { RecordMaintenance } from '../../kernel/records/record-maintenance.port.ts';
import {
  type AppendOptions,
  assertJournalWrittenOnce,
  type RevisionStore,
} from '../../kernel/records/revision-store.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';

const revisionKey = (namespaceKey: string, id: string, revision: number): string =>
  `${namespaceKey}\u0000${id}\u0000${String(revision).padStart(10, '0')}`;
const recordKey = (namespaceKey: string, id: string): string => `${namespaceKey}\u0000${id}`;

/**
 * The test double of the record ports: one state in process memory behind all five (revisions, heads,
 * outbox, directory, maintenance), each with the same contract as its DynamoDB adapter (the contract suites
 * run against both), no encryption. Revisions are frozen copies, as immutable as the items DynamoDB holds.
 */
export class InMemoryRecordStore
  implements RevisionStore, HeadProjection, Outbox, NamespaceDirectory, RecordMaintenance
{
  readonly #clock: Clock;
  readonly #directory = new Map<string, NamespaceEntry>();
  readonly #revisions = new Map<string, RecordRevision>();
  readonly #heads = new Map<string, RecordRevision>();
  readonly #outbox = new Map<string, OutboxEntry>();

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
  }

  async append(revision: RecordRevision, event: RecordEvent, options: AppendOptions = {}): Promise<void> {
    assertJournalWrittenOnce(revision);
    if (options.after) await options.after;
    const key = revisionKey(revision.namespace.key, revision.id, revision.revision);
    if (this.#revisions.has(key)) throw new RevisionConflictError();
    const stored = Object.freeze(structuredCloneRevision(revision));
    this.#revisions.set(key, stored);
    this.#directory.set(`${revision.namespace.tenant}#${revision.namespace.hash}`, {
      key: revision.namespace.key,
      hash: revision.namespace.hash,
      tenant: revision.namespace.tenant,
    });
    this.#outbox.set(key, { event: structuredClone(event), marker: key });
    // Through projectHead as the adapter does (tests stand in a failing one); journal records only indexed.
    await (revision.namespace.kind.journal ? this.#moveHead(stored) : this.projectHead(stored));
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
    if (page.descending) ids.reverse();
    const after = page.cursor ? decodeCursor(page.cursor, (position) => position.startsWith('H#')).slice(2) : undefined;
    const live = ids
      .filter((id) => after === undefined || (page.descending ? id < after : id > after))
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

  async listExpiredHeads(
    namespace: Namespace,
    page: PageRequest & { expiredBefore: string },
  ): Promise<Page<RecordRevision>> {
    const prefix = `${namespace.key}\u0000`;
    const after = page.cursor ? decodeCursor(page.cursor, (position) => position.startsWith('H#')).slice(2) : '';
    const expired = [...this.#heads.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, head]) => head)
      .filter((head) => head.id > after && head.expiresAt <= page.expiredBefore);
    return this.#page(expired, page.limit, (head) => `H#${head.id}`);
  }

  async listRecordIds(namespace: Namespace, page: PageRequest): Promise<Page<string>> {
    const prefix = `${namespace.key}\u0000`;
    const after = page.cursor ? decodeCursor(page.cursor, (position) => position.startsWith('R#')).slice(2) : '';
    const ids = [
      ...new Set(
        [...this.#revisions.keys()]
          .filter((key) => key.startsWith(prefix))
          .map((key) => key.split('\u0000')[1] as string),
      ),
    ]
      .sort()
      .filter((id) => id > after);
    return this.#page(ids, page.limit, (id) => `R#${id}`);
  }

  async purge(namespace: Namespace, id: string): Promise<number> {
    const prefix = `${namespace.key}\u0000${id}\u0000`;
    let removed = 0;
    for (const key of [...this.#revisions.keys()].filter((candidate) => candidate.startsWith(prefix))) {
      this.#revisions.delete(key);
      this.#outbox.delete(key);
      removed += 1;
    }
    // A journal record's entry in the map is only an index of its revision, not an item of its own.
    if (this.#heads.delete(recordKey(namespace.key, id)) && !namespace.kind.journal) removed += 1;
    return removed;
  }

  async resolve(tenant: string, hash: string): Promise<NamespaceEntry | undefined> {
    return this.#directory.get(`${tenant}#${hash}`);
  }

  async list(page: PageRequest & { tenant?: string | undefined }): Promise<Page<NamespaceEntry>> {
    const after = page.cursor ? decodeCursor(page.cursor, (position) => position.startsWith('N#')).slice(2) : '';
    const entries = [...this.#directory.entries()]
      .filter(([key]) => (page.tenant === undefined || key.startsWith(`${page.tenant}#`)) && key > after)
      .sort(([a], [b]) => a.localeCompare(b));
    const page_ = this.#page(entries, page.limit, ([key]) => `N#${key}`);
    return { items: page_.items.map(([, entry]) => entry), nextCursor: page_.nextCursor };
  }

  async projectedRevision(namespace: Namespace, id: string): Promise<number | undefined> {
    return this.#heads.get(recordKey(namespace.key, id))?.revision;
  }

  async projectHead(revision: RecordRevision): Promise<boolean> {
    // A journal record is its own head: nothing to project (the map below only indexes it for listings).
    if (revision.namespace.kind.journal) return false;
    return this.#moveHead(revision);
  }

  async projectCommitted(namespace: Namespace, id: string, revision: number): Promise<boolean> {
    const stored = this.#revisions.get(revisionKey(namespace.key, id, revision));
    return stored !== undefined && this.projectHead(stored);
  }

  async #moveHead(revision: RecordRevision): Promise<boolean> {
    const key = recordKey(revision.namespace.key, revision.id);
    const projected = this.#heads.get(key);
    if (projected && projected.revision >= revision.revision) return false;
    this.#heads.set(key, Object.freeze(structuredCloneRevision(revision)));
    return true;
  }

  async pendingEvents(
    limit: number,
    options: { readonly occurredBefore?: Date } = {},
  ): Promise<readonly OutboxEntry[]> {
    const before = options.occurredBefore?.getTime() ?? Number.POSITIVE_INFINITY;
    return [...this.#outbox.values()]
      .filter((entry) => Date.parse(entry.event.occurred_at) <= before)
      .sort((a, b) => (a.event.occurred_at + a.event.event_id).localeCompare(b.event.occurred_at + b.event.event_id))
      .slice(0, limit);
  }

  async pendingEntryOf(marker: string): Promise<OutboxEntry | undefined> {
    return this.#outbox.get(marker);
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
