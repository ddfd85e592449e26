import { ServiceUnavailableError } from '../../../kernel/errors/domain-error.ts';
import type { Namespace } from '../../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../../kernel/observability/metrics.port.ts';
import type { IndexChange } from '../../../kernel/search/search-document.ts';
import {
  type CandidateQuery,
  type CandidateSet,
  type RebuiltState,
  type SearchIndex,
  SearchIndexUnavailableError,
} from '../../../kernel/search/search-index.port.ts';
import type { SearchIndexStore } from '../../../kernel/search/search-index-store.port.ts';
import { decodeChanges, decodeSnapshot, encodeChanges, encodeSnapshot } from './index-codec.ts';
import { NamespaceIndex, type NamespaceIndexParts } from './namespace-index.ts';

export interface EmbeddedSearchIndexOptions {
  readonly store: SearchIndexStore;
  /** Fresh, empty keyword and vector legs for one namespace. */
  readonly parts: () => NamespaceIndexParts;
  readonly metrics: Metrics;
  /** Documents kept in memory over all namespaces; the least recently searched namespaces go first. */
  readonly capacity?: number;
  /**
   * Every this many log entries a snapshot is considered, and written once the log since the last one holds at
   * least this many changes and a quarter of the namespace's documents: a cold load reads a snapshot and a log of
   * at most about max(compactEvery, documents / 4) changes, and writing snapshots costs O(1) a change, not O(N).
   */
  readonly compactEvery?: number;
  /**
   * A namespace whose log was read this recently is searched as held, without reading the log again: another
   * process's appends show up at most this much later (this process's own appends apply as they are written).
   * Verification against the canonical store is unaffected: a record changed or deleted is never shown stale.
   * Default 0: the log is read before every search.
   */
  readonly revalidateAfterMs?: number;
  /** Milliseconds on a monotonic clock (tests move it). */
  readonly monotonicNow?: () => number;
}

const LOG_PAGE = 200;
const APPEND_ATTEMPTS = 20;
/** Namespaces whose last appended sequence a process keeps (a few dozen bytes each). */
const APPENDED_KEPT = 10_000;
/**
 * A log entry is one item: the changes one append takes stay under this many bytes before compression (an item
 * holds 400 KB; text deflates, vectors are sparse), whatever is waiting.
 */
const APPEND_BYTES = 200_000;

/** Changes waiting for their namespace's next append, with the callers whose `apply` they settle. */
interface PendingChanges {
  readonly changes: IndexChange[];
  readonly bytes: number[];
  readonly waiters: { readonly changes: number; resolve(): void; reject(error: unknown): void }[];
}

/** A change's weight in a log entry, before compression. */
const weightOf = (change: IndexChange): number =>
  change.type === 'upsert' ? Buffer.byteLength(change.document.text) + 4096 : 128;

/**
 * The default index: each namespace's index lives beside its records as a sealed log of changes plus snapshots
 * (SearchIndexStore), and a process keeps the namespaces it searches in memory, revalidating each by reading
 * the log after the sequence it holds — one small query when nothing changed — so a search never reads the
 * namespace's records. The same code runs locally and in Lambda.
 */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly name = 'embedded';
  readonly #options: EmbeddedSearchIndexOptions;
  readonly #capacity: number;
  readonly #compactEvery: number;
  readonly #revalidateAfterMs: number;
  readonly #now: () => number;
  /** By namespace key: when the log was last read for a namespace held (on `#now`), before the read was sent. */
  readonly #revalidatedAt = new Map<string, number>();
  /** By namespace key, least recently used first. */
  readonly #loaded = new Map<string, NamespaceIndex>();
  /** One refresh at a time per namespace; concurrent searches share it. */
  readonly #refreshing = new Map<string, Promise<NamespaceIndex>>();
  /** By namespace key: the changes waiting for the append in flight to finish, taken by the next one together. */
  readonly #pending = new Map<string, PendingChanges>();
  readonly #appending = new Set<string>();
  /** By namespace key: changes this process has seen in the log since the newest snapshot it knows. */
  readonly #sinceSnapshot = new Map<string, number>();
  /**
   * By namespace key: the last sequence this process appended to a namespace it does not hold (a consumer that
   * never searches), so its next append goes right after it without reading the log's end. Oldest dropped first.
   */
  readonly #appended = new Map<string, number>();

  constructor(options: EmbeddedSearchIndexOptions) {
    this.#options = options;
    this.#capacity = options.capacity ?? 200_000;
    this.#compactEvery = options.compactEvery ?? 64;
    this.#revalidateAfterMs = options.revalidateAfterMs ?? 0;
    this.#now = options.monotonicNow ?? (() => performance.now());
  }

  /**
   * Appends the changes to the namespace's log. A process appends to one namespace one entry at a time: changes
   * applied while an append is in flight wait and go out together in the next entry (group commit), so the
   * consumers of one process never race each other for the log's next sequence, and a burst of writes to one
   * namespace costs a few entries rather than one each. Resolves once the entry holding these changes is written.
   */
  apply(namespace: Namespace, changes: readonly IndexChange[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const pending = this.#pending.get(namespace.key) ?? { changes: [], bytes: [], waiters: [] };
      this.#pending.set(namespace.key, pending);
      pending.changes.push(...changes);
      pending.bytes.push(...changes.map(weightOf));
      pending.waiters.push({ changes: changes.length, resolve, reject });
      if (!this.#appending.has(namespace.key)) void this.#drain(namespace);
    });
  }

  /** Appends what is waiting for the namespace, an entry at a time, until nothing is. */
  async #drain(namespace: Namespace): Promise<void> {
    const key = namespace.key;
    this.#appending.add(key);
    try {
      for (let batch = this.#takeBatch(key); batch; batch = this.#takeBatch(key)) {
        try {
          await this.#append(namespace, batch.changes);
          for (const waiter of batch.waiters) waiter.resolve();
        } catch (error) {
          for (const waiter of batch.waiters) waiter.reject(error);
        }
      }
    } finally {
      this.#appending.delete(key);
    }
  }

  /** The next entry's changes: whole callers' changes, in order, up to APPEND_BYTES (at least one caller's). */
  #takeBatch(key: string): PendingChanges | undefined {
    const pending = this.#pending.get(key);
    if (!pending || pending.waiters.length === 0) return undefined;
    const batch: PendingChanges = { changes: [], bytes: [], waiters: [] };
    let weight = 0;
    while (pending.waiters.length > 0) {
      const [waiter] = pending.waiters;
      if (!waiter) break;
      const bytes = pending.bytes.slice(0, waiter.changes).reduce((sum, each) => sum + each, 0);
      if (batch.waiters.length > 0 && weight + bytes > APPEND_BYTES) break;
      weight += bytes;
      batch.waiters.push(waiter);
      batch.changes.push(...pending.changes.splice(0, waiter.changes));
      batch.bytes.push(...pending.bytes.splice(0, waiter.changes));
      pending.waiters.shift();
    }
    if (pending.waiters.length === 0) this.#pending.delete(key);
    return batch;
  }

  async #append(namespace: Namespace, changes: readonly IndexChange[]): Promise<void> {
    const body = encodeChanges(changes);
    // First try right after the end this process holds (no read when it is the namespace's only writer); the
    // conditional put refuses it if another writer got there, and the log's end is read then.
    let known = this.#knownEnd(namespace.key);
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const latest = known ?? (await this.#options.store.latestSequence(namespace));
      known = undefined;
      const sequence = latest + 1;
      if (!(await this.#options.store.append(namespace, { sequence, body }))) continue;
      this.#noteAppended(namespace.key, sequence);
      const held = this.#loaded.get(namespace.key);
      if (held && held.sequence === latest) {
        for (const change of changes) held.apply(change);
        held.sequence = sequence;
        this.#sinceSnapshot.set(namespace.key, (this.#sinceSnapshot.get(namespace.key) ?? 0) + changes.length);
      }
      if (sequence % this.#compactEvery === 0) await this.#compact(namespace, sequence);
      return;
    }
    // Another writer took every sequence we tried: the event is retried, and applying it again is harmless.
    throw new ServiceUnavailableError('The search index is busy');
  }

  /** The furthest log end this process knows of, by holding the namespace or by having appended to it. */
  #knownEnd(key: string): number | undefined {
    const held = this.#loaded.get(key)?.sequence;
    const appended = this.#appended.get(key);
    if (held === undefined || appended === undefined) return held ?? appended;
    return Math.max(held, appended);
  }

  #noteAppended(key: string, sequence: number): void {
    this.#appended.delete(key);
    this.#appended.set(key, sequence);
    if (this.#appended.size > APPENDED_KEPT) this.#appended.delete(this.#appended.keys().next().value ?? key);
  }

  async rebuild(namespace: Namespace, read: () => Promise<RebuiltState>): Promise<void> {
    // The log's end first: every entry up to it was written for a revision the canonical read then sees. Entries
    // appended while the read runs are applied after it (revision-aware, so one the read already saw changes nothing).
    const latest = await this.#options.store.latestSequence(namespace);
    const index = NamespaceIndex.fromSnapshot(this.#options.parts(), latest, await read());
    await this.#catchUp(namespace, index);
    await this.#writeSnapshot(namespace, index);
    this.#sinceSnapshot.set(namespace.key, 0);
    this.#hold(namespace, index);
  }

  /** Documents held in memory over every namespace this process holds (searched recently). */
  get heldDocuments(): number {
    let held = 0;
    for (const index of this.#loaded.values()) held += index.size;
    return held;
  }

  async candidates(namespace: Namespace, query: CandidateQuery): Promise<CandidateSet> {
    const index = await this.#fresh(namespace);
    return { candidates: index.candidates(query), documents: index.size };
  }

  /**
   * Writes a snapshot once the log since the last one is long enough (see `compactEvery`). A namespace held
   * here is snapshotted as held. One that is not (the writer is a consumer, which never searches) is weighed
   * on the snapshot's header alone, counting log entries (each holds a change or more), and only then loaded,
   * snapshotted and let go: a process comes to hold only what it searches, so a consumer's memory stays flat
   * however many namespaces it writes to.
   */
  async #compact(namespace: Namespace, sequence: number): Promise<void> {
    if (!this.#loaded.has(namespace.key)) {
      const last = await this.#options.store.latestSnapshotSummary(namespace);
      const entriesSince = sequence - (last?.sequence ?? 0);
      if (entriesSince < Math.max(this.#compactEvery, (last?.documents ?? 0) / 4)) return;
      const index = await this.#load(namespace);
      await this.#writeSnapshot(namespace, index);
      // Only a search that came meanwhile holds it (its own copy, at most this far behind the snapshot).
      if (this.#loaded.has(namespace.key)) this.#sinceSnapshot.set(namespace.key, 0);
      else this.#sinceSnapshot.delete(namespace.key);
      return;
    }
    const index = await this.#fresh(namespace);
    const since = this.#sinceSnapshot.get(namespace.key) ?? Number.POSITIVE_INFINITY;
    if (since < Math.max(this.#compactEvery, index.size / 4)) return;
    this.#sinceSnapshot.set(namespace.key, 0);
    await this.#writeSnapshot(namespace, index);
  }

  async #writeSnapshot(namespace: Namespace, index: NamespaceIndex): Promise<void> {
    await this.#options.store.writeSnapshot(namespace, {
      sequence: index.sequence,
      body: encodeSnapshot(index.snapshot()),
      documents: index.size,
    });
    this.#options.metrics.count('search.index_compacted');
  }

  /** The namespace's index, caught up with its log. */
  #fresh(namespace: Namespace): Promise<NamespaceIndex> {
    const running = this.#refreshing.get(namespace.key);
    if (running) return running;
    const refresh = this.#refresh(namespace).finally(() => this.#refreshing.delete(namespace.key));
    this.#refreshing.set(namespace.key, refresh);
    return refresh;
  }

  async #refresh(namespace: Namespace): Promise<NamespaceIndex> {
    try {
      const held = this.#loaded.get(namespace.key);
      const started = this.#now();
      const revalidated = this.#revalidatedAt.get(namespace.key);
      if (held && revalidated !== undefined && started - revalidated < this.#revalidateAfterMs) {
        this.#hold(namespace, held);
        return held;
      }
      const caughtUp = held && (await this.#catchUp(namespace, held));
      const index = caughtUp ? held : await this.#load(namespace);
      this.#hold(namespace, index);
      this.#revalidatedAt.set(namespace.key, started);
      return index;
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new SearchIndexUnavailableError('The search index could not be read', { cause: error });
    }
  }

  /** Loads the newest snapshot and the log after it. */
  async #load(namespace: Namespace): Promise<NamespaceIndex> {
    const snapshot = await this.#options.store.latestSnapshot(namespace);
    const index = snapshot
      ? NamespaceIndex.fromSnapshot(this.#options.parts(), snapshot.sequence, decodeSnapshot(snapshot.body))
      : new NamespaceIndex(this.#options.parts());
    this.#sinceSnapshot.set(namespace.key, 0);
    this.#options.metrics.count('search.index_loaded');
    if (!(await this.#catchUp(namespace, index)))
      throw new TypeError('The search index log does not continue its newest snapshot');
    return index;
  }

  /**
   * Applies the log after the index's sequence, in order, as far as it runs without a gap; false when the log no
   * longer holds the next entry (it expired: a snapshot after it has what it said). A gap further on is an entry
   * not yet visible to this read: the next search picks it up.
   */
  async #catchUp(namespace: Namespace, index: NamespaceIndex): Promise<boolean> {
    for (;;) {
      // This process's own appends move a held index on while the read is in flight: the gap is judged against
      // what was asked for, and the entries they applied meanwhile are skipped (not a reason to reload it all).
      const asked = index.sequence;
      const entries = await this.#options.store.entriesAfter(namespace, asked, LOG_PAGE);
      const [first] = entries;
      if (!first) return true;
      if (first.sequence !== asked + 1) return false;
      for (const entry of entries) {
        if (entry.sequence <= index.sequence) continue;
        if (entry.sequence !== index.sequence + 1) return true;
        const changes = decodeChanges(entry.body);
        for (const change of changes) index.apply(change);
        index.sequence = entry.sequence;
        this.#sinceSnapshot.set(namespace.key, (this.#sinceSnapshot.get(namespace.key) ?? 0) + changes.length);
      }
      if (entries.length < LOG_PAGE) return true;
    }
  }

  #hold(namespace: Namespace, index: NamespaceIndex): void {
    this.#loaded.delete(namespace.key);
    this.#loaded.set(namespace.key, index);
    let held = 0;
    for (const loaded of this.#loaded.values()) held += loaded.size;
    for (const [key, loaded] of this.#loaded) {
      if (held <= this.#capacity || key === namespace.key) break;
      this.#loaded.delete(key);
      this.#revalidatedAt.delete(key);
      held -= loaded.size;
    }
  }
}
