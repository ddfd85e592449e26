import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { NamespaceDirectory, NamespaceEntry } from '../../kernel/records/namespace-directory.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { Item, MemoryTableClient } from './memory-table-client.ts';

/** The partition of the namespace directory: one item per namespace, `{tenant}#{hash}` → key. */
const DIRECTORY_PARTITION = 'directory';

/**
 * The namespace directory in the memory table. The revision store enters a namespace before its first commit,
 * so a committed revision's namespace is always findable by consumers (from an event's hash) and by the
 * service's jobs (by listing). Entries never change once written, so both directions are cached.
 */
export class DynamoDbNamespaceDirectory implements NamespaceDirectory {
  readonly #table: MemoryTableClient;
  /** Namespaces this process already entered: one conditional put per namespace per process. */
  readonly #known = new Set<string>();
  readonly #resolved = new Map<string, NamespaceEntry>();

  constructor(table: MemoryTableClient) {
    this.#table = table;
  }

  async resolve(tenant: string, hash: string): Promise<NamespaceEntry | undefined> {
    const cached = this.#resolved.get(`${tenant}#${hash}`);
    if (cached) return cached;
    const entry = entryOf(await this.#table.get({ pk: DIRECTORY_PARTITION, sk: `${tenant}#${hash}` }));
    if (entry) this.#resolved.set(`${tenant}#${hash}`, entry);
    return entry;
  }

  async list(page: PageRequest & { tenant?: string | undefined }): Promise<Page<NamespaceEntry>> {
    const prefix = page.tenant === undefined ? '' : `${page.tenant}#`;
    const position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith(prefix)) : undefined;
    const { items, lastSortKey } = await this.#table.querySortKeys({
      pk: DIRECTORY_PARTITION,
      prefix,
      after: position,
      limit: page.limit,
    });
    return {
      items: items.map(entryOf).filter((entry): entry is NamespaceEntry => entry !== undefined),
      nextCursor: lastSortKey === undefined ? undefined : encodeCursor(lastSortKey),
    };
  }

  /** Records `namespace` if it is not recorded yet; idempotent, and cheap after the first call per process. */
  async enter(namespace: Namespace): Promise<void> {
    if (this.#known.has(namespace.key)) return;
    await this.#table.put(
      {
        pk: DIRECTORY_PARTITION,
        sk: `${namespace.tenant}#${namespace.hash}`,
        namespaceKey: namespace.key,
        tenant: namespace.tenant,
        hash: namespace.hash,
      },
      { expression: 'attribute_not_exists(pk)' },
    );
    this.#known.add(namespace.key);
  }
}

const entryOf = (item: Item | undefined): NamespaceEntry | undefined =>
  typeof item?.namespaceKey === 'string' && typeof item.tenant === 'string' && typeof item.hash === 'string'
    ? { key: item.namespaceKey, tenant: item.tenant, hash: item.hash }
    : undefined;
