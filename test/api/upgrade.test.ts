import { chmod, cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { LocalApi } from '../support/local-api.ts';

/**
 * A data folder written by the version before capability modules (4233b7e: notes in three spaces, a deleted
 * note, guardrails, session events that taught beliefs, the audit trail and two idempotency keys), with what
 * each read answered then (`written-by.json`). This version must read it all back the same, accept the ETags
 * and keys it issued, and carry on writing.
 */
const FIXTURE = 'test/fixtures/data/written-by-4233b7e';

interface Recorded {
  readonly clock: string;
  readonly ids: {
    readonly note: string;
    readonly noteEtag: string;
    readonly projectNote: string;
    readonly gone: string;
  };
  readonly reads: Readonly<Record<string, { status: number; etag: string | null; body: unknown }>>;
}

/** The request id is the one part of an answer that is new each time. */
const withoutRequestId = (body: unknown): unknown =>
  JSON.parse(JSON.stringify(body), (key, value: unknown) => (key === 'requestId' ? undefined : value));

describe('Upgrade: data written by the previous version', () => {
  let api: LocalApi;
  let recorded: Recorded;
  let alice: string;
  let admin: string;

  beforeAll(async () => {
    recorded = JSON.parse(await readFile(join(FIXTURE, 'written-by.json'), 'utf8')) as Recorded;
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-upgrade-'));
    await cp(FIXTURE, dataDir, { recursive: true });
    // Git keeps no file modes beyond the executable bit; the server refuses secrets others can read.
    await chmod(join(dataDir, 'keys', 'content-key.bin'), 0o600);
    await chmod(join(dataDir, 'issuer', 'signing-key.pem'), 0o600);
    // The clock stands where the fixture's writer left it, so learned memory has not decayed meanwhile.
    api = await LocalApi.start({ dataDir, persist: true, clock: new ManualClock(recorded.clock) });
    alice = await api.token({ sub: 'alice', groups: ['project:p7:member'] });
    admin = await api.token({ sub: 'ops', groups: ['org:admin', 'project:p7:admin'] });
  });
  afterAll(() => api?.stop());

  it('reads back every note, belief, guardrail, event, applied view and audit entry exactly as it was answered', async () => {
    // Prepare
    const { note, gone } = recorded.ids;
    const agentNote = (recorded.reads.agentNote?.body ?? {}) as { id?: string };
    const beliefs = (recorded.reads.beliefs?.body ?? {}) as { items?: { id: string }[] };
    const reads: Record<string, [string, string]> = {
      note: ['alice', `/v1/notes/${note}`],
      notes: ['alice', '/v1/notes?limit=50'],
      history: ['alice', `/v1/notes/${note}/history`],
      agentNote: ['alice', `/v1/notes/${agentNote.id}?agent=coder`],
      projectNotes: ['alice', '/v1/projects/p7/notes'],
      deleted: ['alice', `/v1/notes/${gone}`],
      beliefs: ['alice', '/v1/beliefs?limit=50'],
      belief: ['alice', `/v1/beliefs/${beliefs.items?.[0]?.id}?project=p7`],
      applied: ['alice', '/v1/applied?agent=coder&project=p7'],
      guardrails: ['alice', '/v1/guardrails'],
      projectGuardrails: ['alice', '/v1/projects/p7/guardrails'],
      events: ['alice', '/v1/sessions/s1/events'],
      audit: ['admin', '/v1/audit?limit=100'],
    };

    // Act & Assess, in the order they were read then (the applied view audits its clamps before the trail is read)
    for (const [name, [caller, path]] of Object.entries(reads)) {
      const response = await api.request('GET', path, { token: caller === 'admin' ? admin : alice });
      const then = recorded.reads[name];
      expect({ name, status: response.status, body: withoutRequestId(response.body) }).toEqual({
        name,
        status: then?.status,
        body: withoutRequestId(then?.body),
      });
      expect({ name, etag: response.headers.get('etag') }).toEqual({ name, etag: then?.etag });
    }
  });

  it('accepts the ETags and Idempotency-Keys the previous version issued, and carries on writing', async () => {
    const revised = await api.request<{ revision: number }>('PATCH', `/v1/notes/${recorded.ids.note}`, {
      token: alice,
      headers: { 'if-match': recorded.ids.noteEtag },
      body: { text: 'written after the upgrade' },
    });
    const replayed = await api.request<{ id: string }>('POST', '/v1/projects/p7/notes', {
      token: alice,
      headers: { 'idempotency-key': 'plan-1' },
      body: { text: 'team plan', tags: ['p7'] },
    });

    expect([revised.status, revised.body.revision]).toEqual([200, 3]);
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.id]).toEqual([
      201,
      'true',
      recorded.ids.projectNote,
    ]);
  });
});
