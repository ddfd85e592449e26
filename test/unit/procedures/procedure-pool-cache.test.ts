import { describe, expect, it } from 'vitest';
import {
  CreateProcedureInput,
  type ProcedureContent,
} from '../../../lambdas/capabilities/procedures/procedure.schema.ts';
import { ProcedurePoolCache } from '../../../lambdas/capabilities/procedures/procedure-pool-cache.ts';
import type { RecordView } from '../../../lambdas/kernel/records/record-service.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { scopeOf } from '../../support/scopes.ts';

const view = (id: string, revision: number): RecordView<ProcedureContent> => ({
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
    status: 'active',
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

describe('Class: ProcedurePoolCache', () => {
  const scope = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p1:member'] });

  it('lists once within its age, again after it, and at once after a change made here', async () => {
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
    clock.advance(5_000);
    await cache.pool(scope, 'p1', list);
    expect(listed).toBe(2);
    heads = [view('P1', 2), view('P2', 1)];
    await cache.changing(scope, 'p1', Promise.resolve());
    const pool = await cache.pool(scope, 'p1', list);
    expect(listed).toBe(3);
    expect(pool.features.map((features) => [features.id, features.revision])).toEqual([
      ['P1', 2],
      ['P2', 1],
    ]);
  });

  it('keeps two tenants’ projects of one name apart', async () => {
    const cache = new ProcedurePoolCache(new ManualClock(new Date()), 5_000);
    const other = scopeOf({ tenant: 'globex', sub: 'alice', groups: ['project:p1:member'] });
    await cache.pool(scope, 'p1', async () => [view('P1', 1)]);
    const theirs = await cache.pool(other, 'p1', async () => []);
    expect(theirs.features).toEqual([]);
  });

  it('does not keep a listing begun before a change made here', async () => {
    const cache = new ProcedurePoolCache(new ManualClock(new Date()), 5_000);
    let release: () => void = () => undefined;
    const slow = cache.pool(
      scope,
      'p1',
      () =>
        new Promise((resolve) => {
          release = () => resolve([view('P1', 1)]);
        }),
    );
    await cache.changing(scope, 'p1', Promise.resolve());
    release();
    await slow;
    let listed = 0;
    await cache.pool(scope, 'p1', async () => {
      listed += 1;
      return [view('P1', 2)];
    });
    expect(listed).toBe(1);
  });
});
