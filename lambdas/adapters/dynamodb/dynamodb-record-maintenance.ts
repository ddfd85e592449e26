import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Page, PageRequest, RecordRevision } from '../../kernel/records/record.schema.ts';
import type { RecordMaintenance } from '../../kernel/records/record-maintenance.port.ts';
import type { DynamoDbHeadProjection } from './dynamodb-head-projection.ts';
import type { MemoryTableClient } from './memory-table-client.ts';
import { headSortKey, headsPrefixOf, type RevisionItems, revisionsPrefixOf } from './revision-items.ts';

/** The retention sweep's and the reconciler's walks over the memory table, and the purge of a record. */
export class DynamoDbRecordMaintenance implements RecordMaintenance {
  readonly #table: MemoryTableClient;
  readonly #items: RevisionItems;
  readonly #heads: DynamoDbHeadProjection;

  constructor(options: { table: MemoryTableClient; items: RevisionItems; heads: DynamoDbHeadProjection }) {
    this.#table = options.table;
    this.#items = options.items;
    this.#heads = options.heads;
  }

  listExpiredHeads(namespace: Namespace, page: PageRequest & { expiredBefore: string }): Promise<Page<RecordRevision>> {
    return this.#items.page(namespace, page, {
      prefix: headsPrefixOf(namespace),
      keep: (head) => head.expiresAt <= page.expiredBefore,
      includeExpired: true,
    });
  }

  async listRecordIds(namespace: Namespace, page: PageRequest): Promise<Page<string>> {
    const ids: string[] = [];
    let position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith('R#')) : undefined;
    // Revisions of one record are adjacent; skip past the last one of each id seen, so a page holds distinct ids.
    while (ids.length < page.limit) {
      const { items } = await this.#table.query({
        where: 'pk = :pk AND sk > :after',
        values: { ':pk': namespace.key, ':after': position ?? 'R#' },
        projection: 'recordId, sk',
        limit: 1,
      });
      const [item] = items;
      const id = item?.recordId;
      if (typeof id !== 'string' || typeof item?.sk !== 'string' || !item.sk.startsWith('R#')) {
        position = undefined;
        break;
      }
      ids.push(id);
      position = `${revisionsPrefixOf(id)}~`;
    }
    return { items: ids, nextCursor: position === undefined ? undefined : encodeCursor(position) };
  }

  async purge(namespace: Namespace, id: string): Promise<number> {
    this.#heads.forget(namespace, id);
    const sortKeys: string[] = [];
    let after: string | undefined;
    do {
      const page = await this.#table.querySortKeys({
        pk: namespace.key,
        prefix: revisionsPrefixOf(id),
        after,
        projection: 'sk',
      });
      sortKeys.push(...page.items.map((item) => item.sk).filter((sk): sk is string => typeof sk === 'string'));
      after = page.lastSortKey;
    } while (after !== undefined);
    // The head last: until every revision is gone, the sweep can still find the record through it.
    if (!namespace.kind.journal) sortKeys.push(headSortKey(id));
    let removed = 0;
    for (const sk of sortKeys) if (await this.#table.delete({ pk: namespace.key, sk })) removed += 1;
    return removed;
  }
}
