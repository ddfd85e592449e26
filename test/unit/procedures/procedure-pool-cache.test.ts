import { describe, expect, it } from 'vitest';
import type { PoolChanges, PoolChangesReader } from '../../../lambdas/capabilities/procedures/pool-change-log.ts';
import {
  CreateProcedureInput,
  type ProcedureContent,
} from '../../../lambdas/capabilities/procedures/procedure.schema.ts';
import { ProcedurePoolCache } from '../../../lambdas/capabilities/procedures/procedure-pool-cache.ts';
import type { RecordView } from '../../../lambdas/kernel/records/record-service.ts';
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

/** A change log in memory, remembering the newest `remembered` changes, as the record does 200. */
class MemoryLog implements PoolChangesReader {
  changes: PoolChanges = { version: 0, recent: [] };
  readonly remembered: number;
  constructor(remembered = 200) {
    this.remembered = remembered;
  }
  async read(): Promise<PoolChanges> {
    return this.changes;
  }
  async record(_scope: unknown, _project: string, id: string): Promise<number> {
    const version = this.changes.version + 1;
    this.changes = { version, recent: [...this.changes.recent, { version, id }].slice(-this.remembered) };
    return version;
  }
}

const idsOf = (pool: { features: readonly { id: string; revision: number }[] }) =>
  pool.features.map((features) => [features.id, features.revision]);

describe('Class: ProcedurePoolCache', () => {
  const scope = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p1:member'] });

  it('lists once, then re-reads only what the log says changed since its copy', async () => {
    // Prepare
    const log = new MemoryLog();
    const cache = new ProcedurePoolCache(log);
    const heads = new Map([['P1', view('P1', 1)]]);
    let listed = 0;
    const read: string[] = [];
    const readers = {
      list: async () => {
        listed += 1;
        return [...heads.values()];
      },
      head: async (id: string) => {
        read.push(id);
        const head = heads.get(id);
        return head?.content?.status === 'active' ? head : undefined;
      },
    };
    // Act / Assess: unchanged, the copy answers.
    await cache.pool(scope, 'p1', readers);
    await cache.pool(scope, 'p1', readers);
    expect(listed).toBe(1);
    // Another instance adds P2 and retires P1.
    heads.set('P2', view('P2', 1));
    await log.record(scope, 'p1', 'P2');
    heads.set('P1', view('P1', 2, 'retired'));
    await log.record(scope, 'p1', 'P1');
    const pool = await cache.pool(scope, 'p1', readers);
    expect(idsOf(pool)).toEqual([['P2', 1]]);
    expect(read.sort()).toEqual(['P1', 'P2']);
    expect(listed).toBe(1);
  });

  it('lists again when more changed than the log remembers', async () => {
    const log = new MemoryLog(2);
    const cache = new ProcedurePoolCache(log);
    let listed = 0;
    const readers = {
      list: async () => {
        listed += 1;
        return [view('P1', 1)];
      },
      head: async () => undefined,
    };
    await cache.pool(scope, 'p1', readers);
    for (const id of ['A', 'B', 'C']) await log.record(scope, 'p1', id);
    await cache.pool(scope, 'p1', readers);
    expect(listed).toBe(2);
  });

  it('patches in what this instance wrote, taking the version only when nothing else changed in between', async () => {
    const log = new MemoryLog();
    const cache = new ProcedurePoolCache(log);
    let listed = 0;
    const read: string[] = [];
    const readers = {
      list: async () => {
        listed += 1;
        return [view('P1', 1)];
      },
      head: async (id: string) => {
        read.push(id);
        return view(id, 1);
      },
    };
    await cache.pool(scope, 'p1', readers);
    await cache.changing(scope, 'p1', Promise.resolve(view('P3', 1)), (written) => written);
    expect(idsOf(await cache.pool(scope, 'p1', readers))).toEqual([
      ['P1', 1],
      ['P3', 1],
    ]);
    expect(read).toEqual([]);
    await log.record(scope, 'p1', 'P4');
    await cache.changing(scope, 'p1', Promise.resolve(view('P5', 1)), (written) => written);
    expect(idsOf(await cache.pool(scope, 'p1', readers)).map(([id]) => id)).toEqual(['P1', 'P3', 'P5', 'P4']);
    expect(read).toEqual(['P4', 'P5']);
    expect(listed).toBe(1);
  });

  it('keeps two tenants’ projects of one name apart', async () => {
    const cache = new ProcedurePoolCache(new MemoryLog());
    const other = scopeOf({ tenant: 'globex', sub: 'alice', groups: ['project:p1:member'] });
    await cache.pool(scope, 'p1', { list: async () => [view('P1', 1)], head: async () => undefined });
    const theirs = await cache.pool(other, 'p1', { list: async () => [], head: async () => undefined });
    expect(theirs.features).toEqual([]);
  });
});
