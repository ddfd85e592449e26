import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type {
  SealedEntry,
  SealedSnapshot,
  SearchIndexStore,
  SnapshotSummary,
} from '../../kernel/search/search-index-store.port.ts';

/**
 * The search index store in memory, for the in-memory composition and the contract suite. Nothing is sealed:
 * the bodies never leave the process. Copies go in and out, as they would through storage.
 */
export class InMemorySearchIndexStore implements SearchIndexStore {
  readonly #logs = new Map<string, Map<number, Uint8Array>>();
  readonly #snapshots = new Map<string, SealedSnapshot>();

  async latestSequence(namespace: Namespace): Promise<number> {
    return Math.max(0, ...(this.#logs.get(namespace.key)?.keys() ?? []));
  }

  async append(namespace: Namespace, entry: SealedEntry): Promise<boolean> {
    const log = this.#logs.get(namespace.key) ?? new Map<number, Uint8Array>();
    this.#logs.set(namespace.key, log);
    if (log.has(entry.sequence)) return false;
    log.set(entry.sequence, Uint8Array.from(entry.body));
    return true;
  }

  async entriesAfter(namespace: Namespace, after: number, limit: number): Promise<readonly SealedEntry[]> {
    return [...(this.#logs.get(namespace.key) ?? [])]
      .filter(([sequence]) => sequence > after)
      .sort(([a], [b]) => a - b)
      .slice(0, limit)
      .map(([sequence, body]) => ({ sequence, body: Uint8Array.from(body) }));
  }

  async latestSnapshot(namespace: Namespace): Promise<SealedEntry | undefined> {
    const snapshot = this.#snapshots.get(namespace.key);
    return snapshot && { sequence: snapshot.sequence, body: Uint8Array.from(snapshot.body) };
  }

  async latestSnapshotSummary(namespace: Namespace): Promise<SnapshotSummary | undefined> {
    const snapshot = this.#snapshots.get(namespace.key);
    return snapshot && { sequence: snapshot.sequence, documents: snapshot.documents };
  }

  async writeSnapshot(namespace: Namespace, snapshot: SealedSnapshot): Promise<void> {
    const known = this.#snapshots.get(namespace.key);
    if (!known || known.sequence <= snapshot.sequence)
      this.#snapshots.set(namespace.key, {
        sequence: snapshot.sequence,
        body: Uint8Array.from(snapshot.body),
        documents: snapshot.documents,
      });
  }
}
