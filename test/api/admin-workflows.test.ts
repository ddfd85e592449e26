import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { eventually, LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string };
type Run = {
  id: string;
  status: string;
  steps: { name: string; attempts: number; status: string }[];
  result?: Record<string, number>;
};

describe('API: workflows for org admins — the retention sweep', () => {
  let api: LocalApi;
  let clock: ManualClock;
  let admin: string;
  let writer: string;

  beforeEach(async () => {
    clock = new ManualClock(new Date().toISOString());
    api = await LocalApi.start({ clock });
    admin = await api.token({ tenant: 'acme', sub: 'boss', groups: ['org:admin'] });
    writer = await api.token({ tenant: 'acme', sub: 'writer' });
  });

  afterEach(async () => {
    await api.stop();
  });

  const sweep = async () => {
    const started = await api.request<Run>('POST', '/v1/admin/workflows/retention-sweep', { token: admin });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/v1/admin/workflows/runs/${started.body.id}`);
    await api.server.backend.local.workflowRunner.idle();
    return (await api.request<Run>('GET', `/v1/admin/workflows/runs/${started.body.id}`, { token: admin })).body;
  };

  it('lets session events expire without a tombstone (they are written once) and purges each as one item', async () => {
    // Prepare: two events of one session (the session-event TTL is 30 days by default)
    for (const text of ['first', 'second'])
      expect(
        (
          await api.request('POST', '/v1/sessions/s1/events', {
            token: writer,
            body: { type: 'message', role: 'user', text },
          })
        ).status,
      ).toBe(201);

    // Act: sweep once they have expired, then again past the purge horizon
    clock.advanceDays(31);
    const expired = await sweep();
    clock.advanceDays(31);
    const purged = await sweep();

    // Assess
    expect(expired.result).toEqual({ tombstoned: 0, purgedRecords: 0, purgedItems: 0 });
    expect(purged.result).toEqual({ tombstoned: 0, purgedRecords: 2, purgedItems: 2 });
    const listed = await api.request<{ items: unknown[] }>('GET', '/v1/sessions/s1/events', { token: writer });
    expect(listed.body.items).toEqual([]);
  });

  it('tombstones expired notes, purges them past the horizon, and reports counts', async () => {
    // Prepare: two notes; one is revised later, so it expires later
    const stale = (await api.request<Note>('POST', '/v1/notes', { token: writer, body: { text: 'stale' } })).body;
    const fresh = (await api.request<Note>('POST', '/v1/notes', { token: writer, body: { text: 'fresh' } })).body;
    clock.advanceDays(200);
    await api.request('PATCH', `/v1/notes/${fresh.id}`, {
      token: writer,
      headers: { 'if-match': fresh.etag },
      body: { text: 'kept fresh' },
    });

    // Act: a year and a bit later, sweep; then again past the purge horizon
    clock.advanceDays(170);
    const first = await sweep();
    clock.advanceDays(31);
    const second = await sweep();

    // Assess
    expect(first).toMatchObject({ status: 'succeeded', result: { tombstoned: 1, purgedRecords: 0, purgedItems: 0 } });
    expect(first.steps.map((step) => [step.name, step.attempts, step.status])).toEqual([
      ['tombstone-expired-records', 1, 'succeeded'],
      ['purge-past-horizon', 1, 'succeeded'],
      ['report', 1, 'succeeded'],
    ]);
    expect(second.result).toEqual({ tombstoned: 0, purgedRecords: 1, purgedItems: 3 });
    expect((await api.request('GET', `/v1/notes/${stale.id}`, { token: writer })).status).toBe(404);
    expect((await api.request('GET', `/v1/notes/${fresh.id}`, { token: writer })).status).toBe(200);
    const audit = await eventually(async () => {
      const items = (
        await api.request<{ items: { action: string; recordId: string; actor: { principal: string } }[] }>(
          'GET',
          '/v1/audit?limit=50',
          { token: admin },
        )
      ).body.items;
      return items.some((entry) => entry.action === 'record.expired') ? items : undefined;
    });
    expect(audit.find((entry) => entry.action === 'record.expired')).toMatchObject({
      recordId: stale.id,
      actor: { principal: 'memory-hub-system' },
    });
  });

  it('is for org admins only, and shows a run to its own tenant only', async () => {
    const run = await sweep();
    const otherAdmin = await api.token({ tenant: 'globex', sub: 'boss', groups: ['org:admin'] });

    expect((await api.request('POST', '/v1/admin/workflows/retention-sweep', { token: writer })).status).toBe(403);
    expect((await api.request('GET', `/v1/admin/workflows/runs/${run.id}`, { token: writer })).status).toBe(403);
    expect((await api.request('GET', `/v1/admin/workflows/runs/${run.id}`, { token: otherAdmin })).status).toBe(404);
    expect((await api.request('POST', '/v1/admin/workflows/make-coffee', { token: admin })).status).toBe(404);
  });
});
