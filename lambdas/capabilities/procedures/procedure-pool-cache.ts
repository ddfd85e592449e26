import type { Scope } from '../../kernel/identity/scope.ts';
import type { RecordView } from '../../kernel/records/record-service.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { ProcedureContent } from './procedure.schema.ts';
import { type ProcedureFeatures, procedureFeatures } from './procedure-ranking.ts';

/*
 * A project's active pool as ranking reads it, kept per function instance: listing and decrypting every head of
 * a 10,000-procedure pool takes seconds, ranking it milliseconds. So a pool is listed in full only when this
 * instance has none; after that,
 * - what this instance changes (a procedure created, refined, retired, promoted) is patched in at once;
 * - a hit whose head had moved, found when every hit is re-read before it is shown (ProceduresService), is
 *   patched in from that head;
 * - once the pool is older than `maxAgeMs`, a retrieval still answers from it and lists it again in the
 *   background (one listing at a time), so what another instance wrote arrives within that age plus a listing.
 * Nothing the pool no longer holds is ever shown: hits are re-read from their heads first. Features of a
 * revision never change, so a new listing reuses those of the revisions it already had.
 */

export type ProcedureView = RecordView<ProcedureContent>;

export interface CachedPool {
  readonly features: readonly ProcedureFeatures[];
  readonly loadedAt: number;
}

export const DEFAULT_POOL_MAX_AGE_MS = 5_000;
const POOLS_LIMIT = 32;

type Listing = () => Promise<ProcedureView[]>;

export class ProcedurePoolCache {
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #pools = new Map<string, CachedPool>();
  /** Bumped by each patch, so a listing begun before it does not undo it. */
  readonly #generations = new Map<string, number>();
  readonly #listing = new Map<string, Promise<CachedPool>>();

  constructor(clock: Clock, maxAgeMs = DEFAULT_POOL_MAX_AGE_MS) {
    this.#clock = clock;
    this.#maxAgeMs = maxAgeMs;
  }

  /** The caller's project's pool: the cached one (refreshed in the background once old), or a first listing. */
  async pool(scope: Scope, project: string, list: Listing): Promise<CachedPool> {
    const key = keyOf(scope, project);
    const cached = this.#pools.get(key);
    if (!cached) return this.#load(key, list);
    if (this.#clock.now().getTime() - cached.loadedAt >= this.#maxAgeMs)
      // A failed refresh leaves the cached pool as it was; the next retrieval tries again.
      this.#load(key, list).catch(() => undefined);
    return cached;
  }

  /** Puts what was just read of some procedures into the cached pool: an active head replaces its entry, anything else leaves. */
  patch(
    scope: Scope,
    project: string,
    changes: readonly { readonly id: string; readonly head?: ProcedureView }[],
  ): void {
    const key = keyOf(scope, project);
    this.#generations.set(key, (this.#generations.get(key) ?? 0) + 1);
    const cached = this.#pools.get(key);
    if (!cached || changes.length === 0) return;
    const byId = new Map(cached.features.map((features) => [features.id, features]));
    for (const { id, head } of changes) {
      if (head?.status === 'active' && head.content?.status === 'active') {
        if (byId.get(id)?.revision !== head.revision)
          byId.set(id, procedureFeatures(head.id, head.revision, head.content));
      } else byId.delete(id);
    }
    this.#pools.set(key, { features: [...byId.values()], loadedAt: cached.loadedAt });
  }

  /** Runs a change to the project's pool and patches in the procedure it wrote. */
  async changing<T>(
    scope: Scope,
    project: string,
    change: Promise<T>,
    written: (result: T) => ProcedureView | undefined,
  ): Promise<T> {
    const result = await change;
    const head = written(result);
    if (head) this.patch(scope, project, [{ id: head.id, head }]);
    return result;
  }

  #load(key: string, list: Listing): Promise<CachedPool> {
    const running = this.#listing.get(key);
    if (running) return running;
    const loading = this.#list(key, list).finally(() => this.#listing.delete(key));
    this.#listing.set(key, loading);
    return loading;
  }

  async #list(key: string, list: Listing): Promise<CachedPool> {
    const generation = this.#generations.get(key) ?? 0;
    const loadedAt = this.#clock.now().getTime();
    const previous = new Map((this.#pools.get(key)?.features ?? []).map((features) => [features.id, features]));
    const features = (await list()).map((view) => {
      const known = previous.get(view.id);
      return known?.revision === view.revision
        ? known
        : procedureFeatures(view.id, view.revision, view.content as ProcedureContent);
    });
    const pool = { features, loadedAt };
    // A patch made while listing is newer than the listing: keep the patched pool, list again next time.
    if ((this.#generations.get(key) ?? 0) !== generation) return this.#pools.get(key) ?? pool;
    this.#pools.delete(key);
    if (this.#pools.size >= POOLS_LIMIT) this.#pools.delete(this.#pools.keys().next().value as string);
    this.#pools.set(key, pool);
    return pool;
  }
}

// The tenant is part of the key: two tenants' projects of one name are two pools.
const keyOf = (scope: Scope, project: string) => `${scope.tenant}\u0000${project}`;
