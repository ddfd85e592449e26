import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string };
type AuditPage = { items: { action: string; recordId: string; revision: number; decision: string }[] };

describe('API: event backbone', () => {
  let api: LocalApi;
  let writer: string;
  let admin: string;

  beforeEach(async () => {
    api = await LocalApi.start();
    writer = await api.token({ tenant: 'acme', sub: 'writer' });
    admin = await api.token({ tenant: 'acme', sub: 'boss', groups: ['org:admin'] });
  });

  afterEach(async () => {
    await api.stop();
  });

  const auditOf = async (token = admin) =>
    (await api.request<AuditPage>('GET', '/v1/audit?limit=100', { token })).body.items;

  it('relays each committed revision to the audit trail once, right after the commit', async () => {
    const created = await api.request<Note>('POST', '/v1/notes', { token: writer, body: { text: 'audited' } });
    await api.request('PATCH', `/v1/notes/${created.body.id}`, {
      token: writer,
      headers: { 'if-match': created.body.etag },
      body: { text: 'audited twice' },
    });

    const entries = await eventually(async () => {
      const items = await auditOf();
      return items.length === 2 ? items : undefined;
    });

    expect(entries.map((entry) => [entry.action, entry.recordId, entry.revision, entry.decision])).toEqual([
      ['record.created', created.body.id, 1, 'committed'],
      ['record.revised', created.body.id, 2, 'committed'],
    ]);
    expect(JSON.stringify(entries)).not.toContain('audited');
  });

  it('keeps the audit trail to org admins of the tenant (reference 002: restrict audit access by role)', async () => {
    await api.request('POST', '/v1/notes', { token: writer, body: { text: 'x' } });
    const otherAdmin = await api.token({ tenant: 'globex', sub: 'boss', groups: ['org:admin'] });
    await eventually(async () => ((await auditOf()).length === 1 ? true : undefined));

    expect((await api.request('GET', '/v1/audit', { token: writer })).status).toBe(403);
    expect(await auditOf(otherAdmin)).toEqual([]);
    const later = await api.request<AuditPage>('GET', '/v1/audit?since=2999-01-01T00:00:00Z', { token: admin });
    expect(later.body.items).toEqual([]);
    expect((await api.request('GET', '/v1/audit?since=yesterday', { token: admin })).status).toBe(422);
  });

  it('commits writes while the bus is down, and brings every projection back when it returns (TEST-12)', async () => {
    // Prepare: the bus goes down, and one head projection write is lost as well
    const { bus } = api.server.backend.local;
    bus.setAvailable(false);
    const created = await api.request<Note>('POST', '/v1/notes', {
      token: writer,
      body: { text: 'during the outage' },
    });
    const { reconciler } = api.server.backend.system;
    const revised = await api.request<Note>('PATCH', `/v1/notes/${created.body.id}`, {
      token: writer,
      headers: { 'if-match': created.body.etag },
      body: { text: 'still during the outage' },
    });

    // Assess the outage: writes committed and readable, the audit trail lags
    expect([created.status, revised.status]).toEqual([201, 200]);
    await api.server.relay.idle();
    expect(await auditOf()).toEqual([]);

    // Act: the bus returns; reconciliation republishes the outbox
    bus.setAvailable(true);
    const report = await reconciler.run();

    // Assess recovery
    expect(report.eventsRepublished).toBe(2);
    expect(report.eventsStillPending).toBe(0);
    expect((await auditOf()).map((entry) => entry.revision)).toEqual([1, 2]);
    const read = await api.request<{ text: string; revision: number }>('GET', `/v1/notes/${created.body.id}`, {
      token: writer,
    });
    expect(read.body).toMatchObject({ text: 'still during the outage', revision: 2 });
  });

  it('lists a note whose head write was lost once the relay has relayed its event, with no reconciliation', async () => {
    // Prepare: the writer's head write fails once, as a throttled request would
    const heads = api.server.backend.kernel.heads as unknown as {
      projectItem: (...args: unknown[]) => Promise<boolean>;
    };
    const projectItem = heads.projectItem.bind(heads);
    let failures = 0;
    heads.projectItem = (...args) => (failures++ === 0 ? Promise.reject(new Error('throttled')) : projectItem(...args));
    const listed = async () =>
      (await api.request<{ items: { id: string }[] }>('GET', '/v1/notes', { token: writer })).body.items.map(
        (note) => note.id,
      );

    // Act
    const created = await api.request<Note>('POST', '/v1/notes', { token: writer, body: { text: 'listed later' } });
    await api.server.relay.idle();

    // Assess: the writer's attempt failed, the relay's moved the head; the bus has no head consumer
    expect(created.status).toBe(201);
    expect(failures).toBe(2);
    expect(await listed()).toEqual([created.body.id]);
    expect(api.server.backend.local.bus.consumerNames).not.toContain('head-projection');
  });

  it('dead-letters an event a consumer keeps failing on, and a replay applies it once', async () => {
    // Prepare: the audit consumer fails every delivery for a while
    const audit = api.server.backend.system.consumers['audit-trail'];
    if (!audit) throw new Error('no audit consumer');
    const consume = audit.consume.bind(audit);
    (audit as { consume: typeof consume }).consume = async () => {
      throw Object.assign(new Error('audit store unavailable'), { name: 'ServiceUnavailableError' });
    };
    await api.request('POST', '/v1/notes', { token: writer, body: { text: 'dead-lettered' } });
    await api.server.relay.idle();
    const { deadLetters, bus } = api.server.backend.local;
    expect(await deadLetters.receive(10)).toHaveLength(1);
    expect(await auditOf()).toEqual([]);

    // Act: the consumer recovers; the dead letters are replayed, twice
    (audit as { consume: typeof consume }).consume = consume;
    const { replayDeadLetters } = await import('../../lambdas/kernel/events/dead-letter-replay.ts');
    const first = await replayDeadLetters(deadLetters, (event, consumer) => bus.deliver(event, consumer));
    const second = await replayDeadLetters(deadLetters, (event, consumer) => bus.deliver(event, consumer));

    // Assess
    expect(first).toEqual({ replayed: 1, stillFailing: 0 });
    expect(second).toEqual({ replayed: 0, stillFailing: 0 });
    expect(await auditOf()).toHaveLength(1);
  });
});
