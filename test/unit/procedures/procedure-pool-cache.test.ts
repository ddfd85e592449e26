import { describe, expect, it } from 'vitest';
import {
  CreateProcedureInput,
  type ProcedureContent,
} from '../../../lambdas/capabilities/procedures/procedure.schema.ts';
import { ProcedurePoolCache } from '../../../lambdas/capabilities/procedures/procedure-pool-cache.ts';
import type { RecordView } from '../../../lambdas/kernel/records/record-service.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { scopeOf } from '../../support/scopes.ts';

const view = (id: string, revision: number, status: 'active' | 'retired' = 'active'): RecordView<ProcedureContent> => ({
  id,
  kind: 'procedure',
  owner: { type: 'project', projectId: 'p1' },
  revision,
  status: 'active',
  content: {
    ...CreateProcedureInput.parse({
      metadata: { title: `Procedure ${id}`, description: 'd', taskFamily: 'f' },
      steps: [{ id: 's', instruction: 'Do it' }],
    }),
    status,
    change: { kind: 'created' },
  },
  provenance: {
    createdBy: { principal: 'a', client: 'c' },
    revisedBy: { principal: 'a', client: 'c' },
    sourceEventIds: [],
  },
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  expiresAt: '2036-12-01T00:00:00.000Z',
});

const idsOf = (pool: { features: readonly { id: string; revision: number }[] }) =>
  pool.features.map((features) => [features.id, features.revision]);

describe('Class: ProcedurePoolCache', () => {
  const scope = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p1:member'] });

  it('lists once, then answers from the cache and lists again in the background once old', async () => {
    // Prepare
    const clock = new ManualClock(new Date('2026-12-01T00:00:00.000Z'));
    const cache = new ProcedurePoolCache(clock, 5_000);
    let listed = 0;
    let heads = [view('P1', 1)];
    const list = async () => {
      listed += 1;
      return heads;
    };
    // Act / Assess
    await cache.pool(scope, 'p1', list);
    await cache.pool(scope, 'p1', list);
    expect(listed).toBe(1);
    heads = [view('P1', 1), view('P2', 1)];
    clock.advance(5_000);
    const stale = await cache.pool(scope, 'p1', list);
    expect(idsOf(stale)).toEqual([['P1', 1]]);
    expect(listed).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(idsOf(await cache.pool(scope, 'p1', list))).toEqual([
      ['P1', 1],
      ['P2', 1],
    ]);
    expect(listed).toBe(2);
  });

  it('patches in what this instance wrote and what a retrieval read, without listing', async () => {
    const cache = new ProcedurePoolCache(new ManualClock(new Date()), 5_000);
    let listed = 0;
    const list = async () => {
      listed += 1;
      return [view('P1', 1), view('P2', 1)];
    };
    await cache.pool(scope, 'p1', list);
    await cache.changing(scope, 'p1', Promise.resolve(view('P3', 1)), (written) => written);
    cache.patch(scope, 'p1', [
      { id: 'P1', head: view('P1', 2) },
      { id: 'P2', head: view('P2', 2, 'retired') },
    ]);
    expect(idsOf(await cache.pool(scope, 'p1', list))).toEqual([
      ['P1', 2],
      ['P3', 1],
    ]);
    expect(listed).toBe(1);
  });

  it('keeps two tenants’ projects of one name apart', async () => {
    const cache = new ProcedurePoolCache(new ManualClock(new Date()), 5_000);
    const other = scopeOf({ tenant: 'globex', sub: 'alice', groups: ['project:p1:member'] });
    await cache.pool(scope, 'p1', async () => [view('P1', 1)]);
    const theirs = await cache.pool(other, 'p1', async () => []);
    expect(theirs.features).toEqual([]);
  });

  it('does not let a listing begun before a patch undo it', async () => {
    const cache = new ProcedurePoolCache(new ManualClock(new Date()), 0);
    await cache.pool(scope, 'p1', async () => [view('P1', 1)]);
    let release: () => void = () => undefined;
    // Age 0: this answers from the cache and starts a listing that still holds P1 at revision 1.
    await cache.pool(
      scope,
      'p1',
      () =>
        new Promise((resolve) => {
          release = () => resolve([view('P1', 1)]);
        }),
    );
    cache.patch(scope, 'p1', [{ id: 'P1', head: view('P1', 2) }]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    let listed = 0;
    const pool = await cache.pool(scope, 'p1', async () => {
      listed += 1;
      return [view('P1', 2)];
    });
    expect(idsOf(pool)).toEqual([['P1', 2]]);
    // The patched pool was kept, not the older listing; at age 0 this call starts the next listing behind it.
    expect(listed).toBe(1);
  });
});
