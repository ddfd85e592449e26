import { randomBytes } from 'node:crypto';
import type { ContentCipher } from '../../kernel/crypto/content-cipher.port.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type {
  SealedEntry,
  SealedSnapshot,
  SearchIndexStore,
  SnapshotSummary,
} from '../../kernel/search/search-index-store.port.ts';
import type { Item, MemoryTableClient } from './memory-table-client.ts';

/*
 * The embedded search index beside the records of its namespace (same partition key):
 * - `S#c#{sequence:012}` — one log entry, put only if that sequence is free (how writers take turns);
 * - `S#h#{sequence:012}#{write}` — a snapshot's header (its chunk count and document count), written after its chunks `S#s#{sequence:012}#{write}#{chunk:04}`,
 *   so a snapshot whose header is there is whole (`write` tells apart two snapshots written at one sequence).
 * Each body is encrypted under the namespace's key, bound to its item (the encryption context names the item).
 * Log entries do not expire on a timer: one that expired before a snapshot held it would be lost, and worse, the
 * next writer would take its sequence again. (About 1 KB per indexed write: a million writes are ~1 GB, cents a
 * month; pruning the entries a snapshot covers is the lifecycle's to do.)
 */

const LOG = 'S#c#';
const HEADER = 'S#h#';
const CHUNKS = 'S#s#';
/** A snapshot's ciphertext per chunk item: well under DynamoDB's 400 KB item limit. */
const CHUNK_BYTES = 350_000;
/** Snapshots kept: the newest, and the one before (a reader may be midway through it). */
const SNAPSHOTS_KEPT = 2;

const sequenceKey = (sequence: number): string => String(sequence).padStart(12, '0');
/** A snapshot's chunks sit under its header's own key: `S#h#{sequence}#{write}` → `S#s#{sequence}#{write}#`. */
const chunksPrefixOf = (headerKey: string): string => `${CHUNKS}${headerKey.slice(HEADER.length)}#`;
const sequenceOf = (sk: string, prefix: string): number => Number(sk.slice(prefix.length, prefix.length + 12));

export class DynamoDbSearchIndexStore implements SearchIndexStore {
  readonly #table: MemoryTableClient;
  readonly #cipher: ContentCipher;

  constructor(options: { table: MemoryTableClient; cipher: ContentCipher }) {
    this.#table = options.table;
    this.#cipher = options.cipher;
  }

  async latestSequence(namespace: Namespace): Promise<number> {
    const { items } = await this.#table.querySortKeys({
      pk: namespace.key,
      prefix: LOG,
      forward: false,
      limit: 1,
      projection: 'sk',
    });
    const [newest] = items;
    return newest ? sequenceOf(String(newest.sk), LOG) : 0;
  }

  async append(namespace: Namespace, entry: SealedEntry): Promise<boolean> {
    const sk = `${LOG}${sequenceKey(entry.sequence)}`;
    return this.#table.put(
      { pk: namespace.key, sk, body: await this.#seal(namespace, sk, entry.body) },
      { expression: 'attribute_not_exists(pk)' },
    );
  }

  async entriesAfter(namespace: Namespace, after: number, limit: number): Promise<readonly SealedEntry[]> {
    const { items } = await this.#table.querySortKeys({
      pk: namespace.key,
      prefix: LOG,
      after: `${LOG}${sequenceKey(after)}`,
      limit,
      consistent: false,
    });
    return Promise.all(
      items.map(async (item) => ({
        sequence: sequenceOf(String(item.sk), LOG),
        body: await this.#open(namespace, String(item.sk), item.body),
      })),
    );
  }

  async latestSnapshot(namespace: Namespace): Promise<SealedEntry | undefined> {
    const headers = await this.#headers(namespace, 1);
    const [header] = headers;
    if (!header) return undefined;
    const sequence = sequenceOf(String(header.sk), HEADER);
    const prefix = chunksPrefixOf(String(header.sk));
    // A query answers at most 1 MB: a snapshot of more chunks than that is read page by page.
    const items: Item[] = [];
    let after: string | undefined;
    do {
      const page = await this.#table.querySortKeys({
        pk: namespace.key,
        prefix,
        limit: Number(header.chunks),
        after,
      });
      items.push(...page.items);
      after = page.lastSortKey;
    } while (after !== undefined && items.length < Number(header.chunks));
    if (items.length !== Number(header.chunks)) throw new TypeError('A search index snapshot is missing chunks');
    const sealed = Buffer.concat(items.map((item) => item.chunk as Uint8Array));
    return { sequence, body: await this.#open(namespace, String(header.sk), sealed) };
  }

  async latestSnapshotSummary(namespace: Namespace): Promise<SnapshotSummary | undefined> {
    const [header] = await this.#headers(namespace, 1);
    if (!header) return undefined;
    const documents = Number(header.documents ?? 0);
    return {
      sequence: sequenceOf(String(header.sk), HEADER),
      documents: Number.isSafeInteger(documents) ? documents : 0,
    };
  }

  async writeSnapshot(namespace: Namespace, snapshot: SealedSnapshot): Promise<void> {
    // Its own key per write: two writers of a snapshot at one sequence (a compaction and a rebuild) never mix chunks.
    const headerKey = `${HEADER}${sequenceKey(snapshot.sequence)}#${randomBytes(6).toString('hex')}`;
    const prefix = chunksPrefixOf(headerKey);
    const sealed = await this.#seal(namespace, headerKey, snapshot.body);
    const chunks: Uint8Array[] = [];
    for (let offset = 0; offset < sealed.length; offset += CHUNK_BYTES)
      chunks.push(sealed.subarray(offset, offset + CHUNK_BYTES));
    // Chunks first, the header last: a header is only ever there for a whole snapshot.
    await Promise.all(
      chunks.map((chunk, index) =>
        this.#table.put({
          pk: namespace.key,
          sk: `${prefix}${String(index).padStart(4, '0')}`,
          chunk,
        }),
      ),
    );
    await this.#table.put({ pk: namespace.key, sk: headerKey, chunks: chunks.length, documents: snapshot.documents });
    await this.#dropSnapshotsBefore(namespace);
  }

  async #headers(namespace: Namespace, limit: number): Promise<Item[]> {
    const { items } = await this.#table.querySortKeys({ pk: namespace.key, prefix: HEADER, forward: false, limit });
    return items;
  }

  /** Older snapshots than the newest `SNAPSHOTS_KEPT`: their chunks first, then their header. */
  async #dropSnapshotsBefore(namespace: Namespace): Promise<void> {
    const headers = await this.#headers(namespace, SNAPSHOTS_KEPT + 5);
    for (const header of headers.slice(SNAPSHOTS_KEPT)) {
      const prefix = chunksPrefixOf(String(header.sk));
      await Promise.all(
        Array.from({ length: Number(header.chunks) }, (_, index) =>
          this.#table.delete({ pk: namespace.key, sk: `${prefix}${String(index).padStart(4, '0')}` }),
        ),
      );
      await this.#table.delete({ pk: namespace.key, sk: String(header.sk) });
    }
  }

  #seal(namespace: Namespace, sk: string, body: Uint8Array): Promise<Uint8Array> {
    return this.#cipher.encrypt(body, { tenant: namespace.tenant, namespace: namespace.key, recordId: sk });
  }

  #open(namespace: Namespace, sk: string, sealed: unknown): Promise<Uint8Array> {
    if (!(sealed instanceof Uint8Array)) throw new TypeError('A search index item holds no sealed body');
    return this.#cipher.decrypt(sealed, { tenant: namespace.tenant, namespace: namespace.key, recordId: sk });
  }
}
