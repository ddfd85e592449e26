import type { Namespace } from '../namespaces/namespace.ts';

/** One entry of a namespace's index log, or a snapshot: bytes the store seals with the namespace's key. */
export interface SealedEntry {
  readonly sequence: number;
  readonly body: Uint8Array;
}

/** A snapshot as written: its sealed body and how many documents it holds (a writer weighs compaction on it). */
export interface SealedSnapshot extends SealedEntry {
  readonly documents: number;
}

/** What a snapshot's header says without its body: where it stands, and how many documents it holds. */
export interface SnapshotSummary {
  readonly sequence: number;
  /** 0 for a snapshot written before headers counted them. */
  readonly documents: number;
}

/**
 * Where the embedded search index of each namespace is kept, beside its records: a log of changes, each at the
 * next sequence number, and snapshots of the whole index as of a sequence. Bodies are encrypted under the
 * namespace's key and bound to their place, so nothing of the index is readable without the tenant's key and a
 * body copied elsewhere does not open.
 */
export interface SearchIndexStore {
  /** The greatest sequence in the log, 0 when it is empty. */
  latestSequence(namespace: Namespace): Promise<number>;
  /** Appends at `sequence`; false when another writer has taken that sequence. */
  append(namespace: Namespace, entry: SealedEntry): Promise<boolean>;
  /** Log entries after `after`, ascending, at most `limit`. */
  entriesAfter(namespace: Namespace, after: number, limit: number): Promise<readonly SealedEntry[]>;
  /** The newest snapshot, if any. */
  latestSnapshot(namespace: Namespace): Promise<SealedEntry | undefined>;
  /** The newest snapshot's sequence and size, read without its body (one small item), if any. */
  latestSnapshotSummary(namespace: Namespace): Promise<SnapshotSummary | undefined>;
  /** Writes a snapshot as of `sequence` (whatever its size: the store splits it). */
  writeSnapshot(namespace: Namespace, snapshot: SealedSnapshot): Promise<void>;
}
