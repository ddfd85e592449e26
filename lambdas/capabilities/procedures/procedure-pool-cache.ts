import type { Scope } from '../../kernel/identity/scope.ts';
import type { RecordView } from '../../kernel/records/record-service.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { ProcedureContent } from './procedure.schema.ts';
import { type ProcedureFeatures, procedureFeatures } from './procedure-ranking.ts';

/*
 * A project's active pool as ranking reads it, kept per function instance: listing and decrypting every head of
 * a 10,000-procedure pool for each retrieval would cost far more than ranking it. A pool is listed again when
 * this instance changed it (at once), when a retrieval found a hit whose head had moved (at once), and otherwise
 * after `maxAgeMs`: what another instance wrote reaches this one's retrievals within that age, and nothing the
 * pool no longer holds is ever shown, since every hit is re-read from its head first (ProceduresService).
 * Features of a revision never change, so a re-listed pool reuses those of the revisions it already had.
 */

export interface CachedPool {
  readonly features: readonly ProcedureFeatures[];
  readonly loadedAt: number;
}

export const DEFAULT_POOL_MAX_AGE_MS = 5_000;
const POOLS_LIMIT = 32;

export class ProcedurePoolCache {
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #pools = new Map<string, CachedPool>();
  /** Bumped by each change this instance makes, so a listing begun before it is not kept. */
  readonly #generations = new Map<string, number>();

  constructor(clock: Clock, maxAgeMs = DEFAULT_POOL_MAX_AGE_MS) {
    this.#clock = clock;
    this.#maxAgeMs = maxAgeMs;
  }

  /** The cached pool of the caller's project, listed by `list` when there is none or it is too old. */
  async pool(scope: Scope, project: string, list: () => Promise<RecordView<ProcedureContent>[]>): Promise<CachedPool> {
    const cached = this.#pools.get(keyOf(scope, project));
    if (cached && this.#clock.now().getTime() - cached.loadedAt < this.#maxAgeMs) return cached;
    return this.reload(scope, project, list);
  }

  async reload(
    scope: Scope,
    project: string,
    list: () => Promise<RecordView<ProcedureContent>[]>,
  ): Promise<CachedPool> {
    const key = keyOf(scope, project);
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
    if ((this.#generations.get(key) ?? 0) === generation) {
      this.#pools.delete(key);
      if (this.#pools.size >= POOLS_LIMIT) this.#pools.delete(this.#pools.keys().next().value as string);
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /** Runs a change to the project's pool and forgets the cached pool once it is made (or has failed). */
  async changing<T>(scope: Scope, project: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      const key = keyOf(scope, project);
      this.#generations.set(key, (this.#generations.get(key) ?? 0) + 1);
      this.#pools.delete(key);
    }
  }
}

// The tenant is part of the key: two tenants' projects of one name are two pools.
const keyOf = (scope: Scope, project: string) => `${scope.tenant}\u0000${project}`;
