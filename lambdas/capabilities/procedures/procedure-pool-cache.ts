import type { Scope } from '../../kernel/identity/scope.ts';
import type { RecordView } from '../../kernel/records/record-service.ts';
import type { PoolChanges, PoolChangesReader } from './pool-change-log.ts';
import type { ProcedureContent } from './procedure.schema.ts';
import { type ProcedureFeatures, procedureFeatures } from './procedure-ranking.ts';

/*
 * A project's active pool as ranking reads it, kept per function instance: listing and decrypting every head of
 * a 10,000-procedure pool takes seconds, ranking it milliseconds. Before each retrieval the instance reads the
 * project's change log (pool-change-log.ts, one small item): the same version, and its copy is current; a newer
 * one, and it re-reads only the procedures changed since (or lists again when more changed than the log
 * remembers). A hit whose head had moved, found when every hit is re-read before it is shown, is patched in from
 * that head. Features of a revision never change, so a new listing reuses those of revisions it already had.
 */

export type ProcedureView = RecordView<ProcedureContent>;

export interface CachedPool {
  readonly features: readonly ProcedureFeatures[];
  /** The change-log version this copy holds every change up to. */
  readonly version: number;
}

export interface PoolReaders {
  /** Every active head of the project's pool. */
  readonly list: () => Promise<ProcedureView[]>;
  /** One procedure's head if it is active, else undefined. */
  readonly head: (id: string) => Promise<ProcedureView | undefined>;
}

const POOLS_LIMIT = 32;

export class ProcedurePoolCache {
  readonly #log: PoolChangesReader;
  readonly #pools = new Map<string, CachedPool>();
  readonly #listing = new Map<string, Promise<CachedPool>>();

  constructor(log: PoolChangesReader) {
    this.#log = log;
  }

  /** The caller's project's pool, brought up to the change log's version. */
  async pool(scope: Scope, project: string, readers: PoolReaders): Promise<CachedPool> {
    const key = keyOf(scope, project);
    const changes = await this.#log.read(scope, project);
    const cached = this.#pools.get(key);
    if (cached && cached.version === changes.version) return cached;
    if (cached && coversSince(changes, cached.version)) {
      const ids = [
        ...new Set(changes.recent.filter((change) => change.version > cached.version).map((change) => change.id)),
      ];
      const heads = await Promise.all(ids.map((id) => readers.head(id)));
      return this.#store(
        key,
        patched(
          cached,
          ids.map((id, index) => ({ id, head: heads[index] })),
          changes.version,
        ),
      );
    }
    return this.#listOnce(key, changes.version, readers.list);
  }

  /** Puts what was just read of some procedures into the cached pool (its version unchanged); the pool as patched. */
  patch(
    scope: Scope,
    project: string,
    changes: readonly { readonly id: string; readonly head?: ProcedureView | undefined }[],
  ): CachedPool | undefined {
    const key = keyOf(scope, project);
    const cached = this.#pools.get(key);
    return cached && this.#store(key, patched(cached, changes, cached.version));
  }

  /** Runs a change to the project's pool, logs the procedure it wrote, and patches this instance's copy. */
  async changing<T>(
    scope: Scope,
    project: string,
    change: Promise<T>,
    written: (result: T) => ProcedureView | undefined,
  ): Promise<T> {
    const result = await change;
    const head = written(result);
    if (head === undefined) return result;
    const version = await this.#log.record(scope, project, head.id);
    const key = keyOf(scope, project);
    const cached = this.#pools.get(key);
    // Only when nothing else changed in between may the copy take the new version; otherwise the next read
    // fetches what it missed.
    if (cached)
      this.#store(
        key,
        patched(cached, [{ id: head.id, head }], cached.version === version - 1 ? version : cached.version),
      );
    return result;
  }

  #listOnce(key: string, version: number, list: () => Promise<ProcedureView[]>): Promise<CachedPool> {
    const running = this.#listing.get(key);
    if (running) return running;
    const listing = (async () => {
      const previous = new Map((this.#pools.get(key)?.features ?? []).map((features) => [features.id, features]));
      const features = (await list()).map((view) => {
        const known = previous.get(view.id);
        return known?.revision === view.revision
          ? known
          : procedureFeatures(view.id, view.revision, view.content as ProcedureContent);
      });
      // The version was read before listing: whatever changed after it shows in the next read of the log.
      return this.#store(key, { features, version });
    })().finally(() => this.#listing.delete(key));
    this.#listing.set(key, listing);
    return listing;
  }

  #store(key: string, pool: CachedPool): CachedPool {
    this.#pools.delete(key);
    if (this.#pools.size >= POOLS_LIMIT) this.#pools.delete(this.#pools.keys().next().value as string);
    this.#pools.set(key, pool);
    return pool;
  }
}

/** Whether the log still remembers every change after `version`. */
const coversSince = (changes: PoolChanges, version: number): boolean =>
  version < changes.version && (changes.recent[0]?.version ?? Number.POSITIVE_INFINITY) <= version + 1;

const patched = (
  pool: CachedPool,
  changes: readonly { readonly id: string; readonly head?: ProcedureView | undefined }[],
  version: number,
): CachedPool => {
  const byId = new Map(pool.features.map((features) => [features.id, features]));
  for (const { id, head } of changes) {
    if (head?.status === 'active' && head.content?.status === 'active') {
      if (byId.get(id)?.revision !== head.revision)
        byId.set(id, procedureFeatures(head.id, head.revision, head.content));
    } else byId.delete(id);
  }
  return { features: [...byId.values()], version };
};

// The tenant is part of the key: two tenants' projects of one name are two pools.
const keyOf = (scope: Scope, project: string) => `${scope.tenant}\u0000${project}`;
