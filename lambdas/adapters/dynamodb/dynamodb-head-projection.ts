import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { HeadProjection } from '../../kernel/records/head-projection.port.ts';
import type { Page, PageRequest, RecordRevision } from '../../kernel/records/record.schema.ts';
import type { Item, MemoryTableClient } from './memory-table-client.ts';
import { headSortKey, headsPrefixOf, type RevisionItems, revisionSortKey } from './revision-items.ts';

const PROJECTED_MEMO_CAPACITY = 10_000;

/**
 * Head items (`H#{id}`) beside the revisions: a copy of a record's latest revision, replaced only by a greater
 * one (a conditional put), so replays and races are harmless. A journal kind keeps none: its one revision is
 * its head and listings read it directly.
 */
export class DynamoDbHeadProjection implements HeadProjection {
  readonly #table: MemoryTableClient;
  readonly #items: RevisionItems;
  /** Head revisions this process projected, by namespace key and record id (bounded; see projectedRevision). */
  readonly #projectedHere = new Map<string, number>();

  constructor(options: { table: MemoryTableClient; items: RevisionItems }) {
    this.#table = options.table;
    this.#items = options.items;
  }

  listHeads(namespace: Namespace, page: PageRequest): Promise<Page<RecordRevision>> {
    return this.#items.page(namespace, page, {
      prefix: headsPrefixOf(namespace),
      keep: (revision) => revision.status === 'active',
    });
  }

  async projectedRevision(namespace: Namespace, id: string): Promise<number | undefined> {
    // Heads only move forward (until a purge, which forgets the memo): a revision this process projected is
    // a lower bound of the projected one, and enough for the head consumer's usual question.
    const projectedHere = this.#projectedHere.get(memoKey(namespace.key, id));
    if (projectedHere !== undefined) return projectedHere;
    // A journal record's one revision is its head.
    const sortKey = namespace.kind.journal ? revisionSortKey(id, 1) : headSortKey(id);
    const item = await this.#table.get({ pk: namespace.key, sk: sortKey }, { projection: 'revision' });
    return typeof item?.revision === 'number' ? item.revision : undefined;
  }

  async projectHead(revision: RecordRevision): Promise<boolean> {
    if (revision.namespace.kind.journal) return false;
    return this.projectItem(await this.#items.encode(revision, headSortKey(revision.id)), revision.revision);
  }

  async projectCommitted(namespace: Namespace, id: string, revision: number): Promise<boolean> {
    if (namespace.kind.journal) return false;
    // The table's reads are strongly consistent: an event reaching the relay moments after its commit finds it.
    const item = await this.#table.get({ pk: namespace.key, sk: revisionSortKey(id, revision) });
    return item !== undefined && item.recordId === id && this.projectItem(withoutWriteMarks(item), revision);
  }

  /** Forward-only: the head item is replaced only by a greater revision. `item` is that revision, encoded. */
  async projectItem(item: Item, revision: number): Promise<boolean> {
    const recordId = String(item.recordId);
    const moved = await this.#table.put(
      { ...item, sk: headSortKey(recordId) },
      { expression: 'attribute_not_exists(pk) OR revision < :revision', values: { ':revision': revision } },
    );
    if (moved) this.#remember(String(item.pk), recordId, revision);
    return moved;
  }

  /** A purged record may start again from revision 1: what this process remembers of it no longer holds. */
  forget(namespace: Namespace, id: string): void {
    this.#projectedHere.delete(memoKey(namespace.key, id));
  }

  #remember(namespaceKey: string, id: string, revision: number): void {
    if (this.#projectedHere.size >= PROJECTED_MEMO_CAPACITY) this.#projectedHere.clear();
    const key = memoKey(namespaceKey, id);
    this.#projectedHere.set(key, Math.max(revision, this.#projectedHere.get(key) ?? 0));
  }
}

/** What only the revision item carries (its write's id and outbox marker): a head copied from it leaves them. */
const withoutWriteMarks = ({ writeId: _writeId, outboxMarker: _outboxMarker, ...item }: Item): Item => item;

const memoKey = (namespaceKey: string, id: string): string => `${namespaceKey}\u0000${id}`;
