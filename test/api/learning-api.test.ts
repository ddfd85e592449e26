import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { type ApiResponse, eventually, LocalApi } from '../support/local-api.ts';

type BelievedValue = { value: unknown; status: string; support: number; sessions: number; evidence: string[] };
type Belief = {
  id: string;
  key: string;
  kind: string;
  agent?: string;
  basis: string;
  status: string;
  applied: boolean;
  appliedValue?: unknown;
  etag: string;
  revision: number;
  values: BelievedValue[];
  superseded: { value: unknown; by: unknown }[];
};
type InspectedBelief = Belief & { why: { value: unknown; fresh: boolean; expired: boolean }[] };
type Appended = { event: { id: string }; beliefs: Belief[]; withheld: { key: string; reasons: string[] }[] };
type Applied = {
  values: Record<string, { value: unknown; source: string }>;
  clamps: { key: string; requested: unknown; applied: unknown; reason: string; guardrail: { scope: string } }[];
  limitations: unknown[];
};
type Page<T> = { items: T[]; nextCursor?: string };
type SessionEvent = { id: string; session: string; event: Record<string, unknown> };
type AuditEntry = { action: string; recordId: string | null; decision: string; reasonCode: string };
type Run = { id: string; status: string; result?: Record<string, number> };
type ErrorBody = {
  error: { code: string; message: string; issues?: { path: string; message: string }[]; reasons?: string[] };
};

const signal = (key: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'signal',
  key,
  value,
  kind: 'preference',
  basis: 'behavioral',
  cardinality: 'single',
  agent: 'coder',
  ...extra,
});

/** Text of `length` random letters and digits: a value no fixture elsewhere could hold by chance. */
const randomAlphanumeric = (
  length: number,
  alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
) => Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

/** Everything one principal does with learned memory, over HTTP, with their own token. */
const learnerOf = (api: LocalApi, token: string) => ({
  append: (session: string, body: unknown, headers: Record<string, string> = {}) =>
    api.request<Appended>('POST', `/v1/sessions/${session}/events`, { token, body, headers }),
  events: (session: string) =>
    api.request<Page<SessionEvent>>('GET', `/v1/sessions/${session}/events?limit=100`, { token }),
  beliefs: (query = '') => api.request<Page<Belief>>('GET', `/v1/beliefs${query}`, { token }),
  belief: (id: string) => api.request<InspectedBelief>('GET', `/v1/beliefs/${id}`, { token }),
  history: (id: string) => api.request<Page<Belief>>('GET', `/v1/beliefs/${id}/history?limit=100`, { token }),
  applied: (agent: string) => api.request<Applied>('GET', `/v1/applied?agent=${agent}`, { token }),
  correct: (id: string, body: unknown, ifMatch?: string) =>
    api.request<Belief>('PATCH', `/v1/beliefs/${id}`, {
      token,
      body,
      headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
    }),
  forget: (id: string, ifMatch?: string) =>
    api.request('DELETE', `/v1/beliefs/${id}`, {
      token,
      headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
    }),
  reset: (body: unknown) => api.request<{ reset: number }>('POST', '/v1/beliefs/reset', { token, body }),
});
type Learner = ReturnType<typeof learnerOf>;

/** The one belief an append touched; fails the test when it touched none or several. */
const onlyBelief = (response: ApiResponse<Appended>): Belief => {
  expect(response.status).toBe(201);
  expect(response.body.beliefs).toHaveLength(1);
  return response.body.beliefs[0] as Belief;
};

/** Starts a workflow as an org admin and waits for the run to finish. */
const runWorkflow = async (api: LocalApi, admin: string, name: string): Promise<Run> => {
  const started = await api.request<Run>('POST', `/v1/admin/workflows/${name}`, { token: admin });
  expect(started.status).toBe(202);
  await api.server.backend.local.workflowRunner.idle();
  return (await api.request<Run>('GET', `/v1/admin/workflows/runs/${started.body.id}`, { token: admin })).body;
};

describe('API: learned memory over real HTTP', () => {
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');
  let api: LocalApi;
  let alice: string;

  beforeAll(async () => {
    api = await LocalApi.start({ clock });
    alice = await api.token({ sub: 'alice' });
  });

  afterAll(async () => {
    await api.stop();
  });

  const append = (session: string, body: unknown, token = alice) =>
    api.request<Appended>('POST', `/v1/sessions/${session}/events`, { token, body });
  const applied = (agent: string, token = alice) =>
    api.request<Applied>('GET', `/v1/applied?agent=${agent}`, { token });

  /** A principal of their own, so that no test sees another's beliefs. */
  const learner = async (sub: string, tenant = 'acme'): Promise<Learner> =>
    learnerOf(api, await api.token({ tenant, sub }));

  it('matures a behavioral preference only after three signals from two sessions, visible in the third response', async () => {
    const first = await append('s1', signal('response.length', 'short'));
    expect(first.status).toBe(201);
    expect(first.body.beliefs).toHaveLength(1);
    expect(first.body.beliefs[0]).toMatchObject({ key: 'response.length', status: 'provisional', applied: false });
    expect((await applied('coder')).body.values['response.length']).toBeUndefined();

    clock.advance(60_000);
    const second = await append('s1', signal('response.length', 'short'));
    clock.advance(60_000);
    const third = await append('s1', signal('response.length', 'short'));
    expect(second.body.beliefs[0]?.status).toBe('provisional');
    expect(third.body.beliefs[0]).toMatchObject({ status: 'provisional', applied: false });
    expect(third.body.beliefs[0]?.values[0]?.support).toBe(3);

    clock.advanceDays(1);
    const fromSecondSession = await append('s2', signal('response.length', 'short'));
    expect(fromSecondSession.body.beliefs[0]).toMatchObject({
      status: 'mature',
      applied: true,
      appliedValue: 'short',
    });
    expect((await applied('coder')).body.values['response.length']).toEqual({
      value: 'short',
      source: 'personal',
      belief: { id: fromSecondSession.body.beliefs[0]?.id, kind: 'preference' },
    });
    // Another agent's applied view does not reach the coder's preference.
    expect((await applied('writer')).body.values['response.length']).toBeUndefined();
  });

  describe('Maturation', () => {
    it('matures on exactly the third signal when it comes from a second session (s1, s1, s2)', async () => {
      // Prepare
      const bob = await learner('bob');

      // Act
      const first = onlyBelief(await bob.append('s1', signal('response.tone', 'formal')));
      clock.advance(60_000);
      const second = onlyBelief(await bob.append('s1', signal('response.tone', 'formal')));
      clock.advance(60_000);
      const third = onlyBelief(await bob.append('s2', signal('response.tone', 'formal')));

      // Assess
      expect([first.status, second.status]).toEqual(['provisional', 'provisional']);
      expect([first.applied, second.applied]).toEqual([false, false]);
      expect(third).toMatchObject({ status: 'mature', applied: true, appliedValue: 'formal', basis: 'behavioral' });
      expect(third.values).toEqual([
        expect.objectContaining({ value: 'formal', status: 'mature', support: 3, sessions: 2 }),
      ]);
      expect((await bob.applied('coder')).body.values['response.tone']).toEqual({
        value: 'formal',
        source: 'personal',
        belief: { id: third.id, kind: 'preference' },
      });
    });

    it('supersedes a matured single-valued preference with a value of more, newer support', async () => {
      // Prepare: "short" matures
      const carol = await learner('carol');
      for (const session of ['s1', 's1', 's2']) await carol.append(session, signal('response.length', 'short'));
      const before = await carol.applied('coder');
      expect(before.body.values['response.length']?.value).toBe('short');

      // Act: ten days later, "long" is signalled four times across two other sessions
      clock.advanceDays(10);
      let latest: Belief | undefined;
      for (const session of ['s3', 's3', 's4', 's4']) {
        clock.advance(60_000);
        latest = onlyBelief(await carol.append(session, signal('response.length', 'long')));
      }

      // Assess
      const belief = latest as Belief;
      expect(belief).toMatchObject({ status: 'mature', applied: true, appliedValue: 'long' });
      expect(belief.values).toEqual([
        expect.objectContaining({ value: 'long', status: 'mature', support: 4 }),
        expect.objectContaining({ value: 'short', status: 'superseded', support: 3 }),
      ]);
      expect(belief.superseded).toEqual([{ value: 'short', by: 'long', at: expect.any(String) }]);
      expect((await carol.applied('coder')).body.values['response.length']?.value).toBe('long');

      const history = (await carol.history(belief.id)).body.items;
      expect(history.map((revision) => revision.revision)).toEqual(history.map((_, index) => index + 1));
      expect(history).toHaveLength(7);
      const appliedValues = history.map((revision) => revision.appliedValue);
      const firstShort = appliedValues.indexOf('short');
      const firstLong = appliedValues.indexOf('long');
      expect(firstShort).toBeGreaterThanOrEqual(0);
      expect(firstLong).toBeGreaterThan(firstShort);
      expect(history.at(-1)).toMatchObject({ appliedValue: 'long', superseded: [{ value: 'short', by: 'long' }] });
    });

    it('lets matured values of a multi-valued key coexist, applying both', async () => {
      // Prepare
      const dora = await learner('dora');
      const spoken = (value: string) => signal('languages.spoken', value, { cardinality: 'multi' });

      // Act
      let latest: Belief | undefined;
      for (const value of ['german', 'english'])
        for (const session of ['s1', 's1', 's2']) {
          clock.advance(60_000);
          latest = onlyBelief(await dora.append(session, spoken(value)));
        }

      // Assess
      const belief = latest as Belief;
      expect(belief).toMatchObject({ status: 'mature', applied: true, appliedValue: ['english', 'german'] });
      expect(belief.values.map(({ value, status }) => [value, status])).toEqual([
        ['english', 'mature'],
        ['german', 'mature'],
      ]);
      expect(belief.superseded).toEqual([]);
      expect((await dora.applied('coder')).body.values['languages.spoken']).toEqual({
        value: ['english', 'german'],
        source: 'personal',
        belief: { id: belief.id, kind: 'preference' },
      });
    });
  });

  describe('Concurrency', () => {
    it('takes 50 concurrent signals of one rule without a failure, counting each exactly once', async () => {
      // Prepare
      const erin = await learner('erin');

      // Act
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) => erin.append(`s${index % 3}`, signal('response.format', 'bullets'))),
      );

      // Assess
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
      const eventIds = new Set(responses.map((response) => response.body.event.id));
      expect(eventIds.size).toBe(50);
      const id = responses[0]?.body.beliefs[0]?.id as string;
      const belief = await erin.belief(id);
      expect(belief.body).toMatchObject({ status: 'mature', appliedValue: 'bullets' });
      expect(belief.body.values).toEqual([expect.objectContaining({ value: 'bullets', support: 50, sessions: 3 })]);
      expect(belief.body.revision).toBe(50);
    });
  });

  describe('Protection', () => {
    const email = 'jane.doe@example.com';
    const card = '4111 1111 1111 1111';
    const stripeKey = `sk_live_${randomAlphanumeric(24)}`;
    const awsKey = `AKIA${randomAlphanumeric(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`;

    it('refuses a signal holding an email, a card number or an API key, storing and auditing none of it', async () => {
      // Prepare: a tenant of its own, so its audit trail holds this test's entries only
      const tenant = 'protected-co';
      const frank = await learner('frank', tenant);
      const admin = await api.token({ tenant, sub: 'auditor', groups: ['org:admin'] });
      const refusals = [
        { key: 'contact.email', value: `write to ${email}`, reason: 'pii.email' },
        { key: 'billing.card', value: card, reason: 'pii.payment_card' },
        { key: 'payments.key', value: stripeKey, reason: 'secret.api_key' },
        { key: 'cloud.key', value: awsKey, reason: 'secret.aws_access_key' },
      ];

      // Act
      const responses = [];
      for (const { key, value } of refusals) responses.push(await frank.append('s1', signal(key, value)));
      const clean = await frank.append('s1', signal('response.length', 'short'));

      // Assess: each refused with its reason, nothing stored
      for (const [index, response] of responses.entries()) {
        const body = response.body as unknown as ErrorBody;
        expect(response.status).toBe(422);
        expect(body.error.code).toBe('protection.sensitive_content');
        expect(body.error.reasons).toContain(refusals[index]?.reason);
        expect(JSON.stringify(body)).not.toContain(String(refusals[index]?.value));
      }
      expect(clean.status).toBe(201);
      const principalWide = (await frank.beliefs('?limit=100')).body.items;
      const coders = (await frank.beliefs('?agent=coder&limit=100')).body.items;
      expect(principalWide).toEqual([]);
      expect(coders.map((belief) => belief.key)).toEqual(['response.length']);
      const events = (await frank.events('s1')).body.items;
      expect(events.map((event) => event.id)).toEqual([clean.body.event.id]);

      // Assess: the trail has the refusals and the belief the clean signal taught (session events themselves are
      // not audited one by one), and no sensitive content
      const learned = clean.body.beliefs[0]?.id;
      const trail = await eventually(async () => {
        const items = (await api.request<Page<AuditEntry>>('GET', '/v1/audit?limit=100', { token: admin })).body.items;
        const relayed = items.some((entry) => entry.recordId === learned);
        return relayed && items.filter((entry) => entry.decision === 'refused').length === 4 ? items : undefined;
      });
      expect(trail.filter((entry) => entry.decision === 'refused')).toEqual(
        Array(4).fill(expect.objectContaining({ reasonCode: 'protection.sensitive_content' })),
      );
      const json = JSON.stringify(trail);
      for (const secret of [email, card, stripeKey, awsKey, 'contact.email', 'billing.card']) {
        expect(json).not.toContain(secret);
      }
    });

    it('stores a statement holding an email as a session event but learns nothing from it', async () => {
      // Prepare
      const grace = await learner('grace');

      // Act
      const freeText = await grace.append('s1', { type: 'statement', text: `Call me ${email}` });
      const structured = await grace.append('s1', {
        type: 'statement',
        text: 'This is my email address.',
        key: 'contact.email',
        value: email,
      });

      // Assess: both stored
      expect([freeText.status, structured.status]).toEqual([201, 201]);
      const events = (await grace.events('s1')).body.items;
      expect(events.map((event) => event.id)).toEqual([structured.body.event.id, freeText.body.event.id]);
      expect(events[1]?.event).toMatchObject({ type: 'statement', text: `Call me ${email}` });

      // Assess: nothing learned; the structured candidate is withheld by reason, without its value
      expect(freeText.body.beliefs).toEqual([]);
      expect(structured.body.beliefs).toEqual([]);
      expect(structured.body.withheld).toEqual([{ key: 'contact.email', kind: 'profile', reasons: ['pii.email'] }]);
      expect(JSON.stringify(structured.body.withheld)).not.toContain(email);
      const beliefs = (await grace.beliefs('?limit=100')).body.items;
      expect(beliefs).toEqual([]);
    });
  });

  describe('Idempotency', () => {
    it('replays an append retried with the same Idempotency-Key without counting it twice', async () => {
      // Prepare
      const hank = await learner('hank');
      const body = signal('response.tone', 'casual');

      // Act
      const first = await hank.append('s1', body, { 'idempotency-key': 'append-1' });
      const retried = await hank.append('s1', body, { 'idempotency-key': 'append-1' });
      const reused = await hank.append('s1', signal('response.tone', 'formal'), { 'idempotency-key': 'append-1' });

      // Assess
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(retried.body.event.id).toBe(first.body.event.id);
      expect(onlyBelief(retried).values).toEqual([expect.objectContaining({ value: 'casual', support: 1 })]);
      expect(reused.status).toBe(409);

      const id = onlyBelief(first).id;
      const stored = await hank.belief(id);
      expect(stored.body.values).toEqual([expect.objectContaining({ value: 'casual', support: 1 })]);
      expect(stored.body.revision).toBe(1);
      expect((await hank.events('s1')).body.items).toHaveLength(1);
    });
  });

  describe('Correct, forget and reset', () => {
    it('corrects a belief under If-Match only, applying the stated value at once', async () => {
      // Prepare: a provisional belief, and an ETag made stale by a later signal
      const ivy = await learner('ivy');
      const created = onlyBelief(await ivy.append('s1', signal('response.length', 'short')));
      const current = onlyBelief(await ivy.append('s2', signal('response.length', 'short')));

      // Act
      const stale = await ivy.correct(created.id, { value: 'long' }, created.etag);
      const unconditional = await ivy.correct(created.id, { value: 'long' });
      const corrected = await ivy.correct(created.id, { value: 'long' }, current.etag);

      // Assess
      expect(stale.status).toBe(412);
      expect(stale.headers.get('etag')).toBe(current.etag);
      expect(unconditional.status).toBe(428);
      expect(corrected.status).toBe(200);
      expect(corrected.headers.get('etag')).toBe(corrected.body.etag);
      expect(corrected.body).toMatchObject({
        status: 'mature',
        applied: true,
        appliedValue: 'long',
        basis: 'declarative',
        revision: 3,
      });
      expect((await ivy.applied('coder')).body.values['response.length']).toMatchObject({ value: 'long' });
      const read = await ivy.belief(created.id);
      expect(read.headers.get('etag')).toBe(corrected.body.etag);
    });

    it('forgets a belief under If-Match, after which learning starts from nothing', async () => {
      // Prepare
      const jack = await learner('jack');
      const first = onlyBelief(await jack.append('s1', signal('response.format', 'prose')));
      await jack.append('s1', signal('response.format', 'prose'));
      const latest = onlyBelief(await jack.append('s2', signal('response.format', 'prose')));
      expect(latest.status).toBe('mature');

      // Act
      const unconditional = await jack.forget(latest.id);
      const stale = await jack.forget(latest.id, first.etag);
      const forgotten = await jack.forget(latest.id, latest.etag);
      const afterwards = await jack.belief(latest.id);
      const relearned = onlyBelief(await jack.append('s3', signal('response.format', 'prose')));

      // Assess
      expect(unconditional.status).toBe(428);
      expect(stale.status).toBe(412);
      expect(stale.headers.get('etag')).toBe(latest.etag);
      expect(forgotten.status).toBe(204);
      expect(afterwards.status).toBe(404);
      expect((await jack.applied('coder')).body.values['response.format']).toBeUndefined();
      expect(relearned).toMatchObject({ id: latest.id, status: 'provisional', applied: false });
      expect(relearned.values).toEqual([expect.objectContaining({ value: 'prose', support: 1, sessions: 1 })]);
    });

    it("resets one agent's preferences, leaving the principal's profile and other agents' beliefs", async () => {
      // Prepare
      const kate = await learner('kate');
      await kate.append('s1', signal('response.length', 'short'));
      await kate.append('s1', signal('response.tone', 'formal'));
      await kate.append('s1', signal('response.length', 'long', { agent: 'writer' }));
      await kate.append('s1', signal('response.format', 'prose', { agent: undefined }));
      const profile = onlyBelief(await kate.append('s1', { type: 'statement', text: 'Please call me Kat.' }));

      // Act
      const reset = await kate.reset({ kind: 'preference', agent: 'coder' });

      // Assess
      expect(reset).toMatchObject({ status: 200, body: { reset: 2 } });
      expect((await kate.beliefs('?kind=preference&agent=coder')).body.items).toEqual([]);
      const writers = (await kate.beliefs('?kind=preference&agent=writer')).body.items;
      expect(writers.map((belief) => belief.key)).toEqual(['response.length']);
      const principalWide = (await kate.beliefs('?kind=preference')).body.items;
      expect(principalWide.map((belief) => belief.key)).toEqual(['response.format']);
      const profiles = (await kate.beliefs('?kind=profile')).body.items;
      expect(profiles).toEqual([
        expect.objectContaining({ id: profile.id, key: 'preferred_name', appliedValue: 'Kat' }),
      ]);
      expect((await kate.applied('coder')).body.values).toEqual({
        preferred_name: { value: 'Kat', source: 'personal', belief: { id: profile.id, kind: 'profile' } },
      });
    });
  });

  describe('Validation', () => {
    const issuesOf = (response: ApiResponse<unknown>) => {
      const body = response.body as ErrorBody;
      expect(response.status).toBe(422);
      expect(body.error.code).toBe('validation.failed');
      return (body.error.issues ?? []).map((issue) => issue.path);
    };

    it('refuses an event of an unknown type, naming the type', async () => {
      const lena = await learner('lena');

      const response = await lena.append('s1', { type: 'telepathy', text: 'hello' });

      expect(issuesOf(response)).toEqual(['body.type']);
      expect((await lena.events('s1')).body.items).toEqual([]);
    });

    it('refuses a profile signal that names an agent, naming the agent', async () => {
      const lena = await learner('lena');

      const response = await lena.append('s1', signal('home.city', 'Lisbon', { kind: 'profile' }));

      expect(issuesOf(response)).toEqual(['body.agent']);
    });

    it('refuses a signal with a malformed key and no value, naming both fields', async () => {
      const lena = await learner('lena');

      const response = await lena.append('s1', { ...signal('Not A Key', 'x'), value: undefined });

      expect(issuesOf(response).sort()).toEqual(['body.key', 'body.value']);
    });

    it('refuses a body that is not JSON', async () => {
      const token = await api.token({ sub: 'lena' });

      const response = await api.request<ErrorBody>('POST', '/v1/sessions/s1/events', {
        token,
        rawBody: '{"type": "signal",',
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('request.invalid_json');
    });

    it('answers 404 for an id that is not a belief id', async () => {
      const lena = await learner('lena');

      const response = await lena.belief('not-a-belief-id');

      expect(response.status).toBe(404);
      expect((response.body as unknown as ErrorBody).error.code).toBe('not_found');
    });
  });
});

describe('API: learned memory over time — declarative facts, decay and expiry', () => {
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');
  let api: LocalApi;
  let admin: string;
  let mia: Learner;

  beforeAll(async () => {
    api = await LocalApi.start({ clock });
    admin = await api.token({ sub: 'boss', groups: ['org:admin'] });
    mia = learnerOf(api, await api.token({ sub: 'mia' }));
  });

  afterAll(async () => {
    await api.stop();
  });

  it('applies declarative statements at once, decays them after 60 days and expires them after 180', async () => {
    // Prepare / Act: a structured statement and a free-text one
    const city = onlyBelief(
      await mia.append('s1', { type: 'statement', text: 'I live in Lisbon.', key: 'home.city', value: 'Lisbon' }),
    );
    const name = onlyBelief(await mia.append('s1', { type: 'statement', text: 'Please call me Sam.' }));

    // Assess: mature at once and applied
    expect(city).toMatchObject({ kind: 'profile', status: 'mature', applied: true, appliedValue: 'Lisbon' });
    expect(city.basis).toBe('declarative');
    expect(name).toMatchObject({ key: 'preferred_name', kind: 'profile', status: 'mature', appliedValue: 'Sam' });
    expect((await mia.applied('coder')).body.values).toEqual({
      'home.city': { value: 'Lisbon', source: 'personal', belief: { id: city.id, kind: 'profile' } },
      preferred_name: { value: 'Sam', source: 'personal', belief: { id: name.id, kind: 'profile' } },
    });

    // Act: 61 days without a confirmation
    clock.advanceDays(61);

    // Assess: read as provisional at once, not applied, though the stored head is still mature
    for (const { id } of [city, name]) {
      expect((await mia.belief(id)).body).toMatchObject({ status: 'provisional', applied: false, revision: 1 });
      expect((await mia.history(id)).body.items.map((revision) => revision.status)).toEqual(['mature']);
    }
    expect((await mia.applied('coder')).body.values).toEqual({});

    // Act: the synthesis writes the decay down
    const decay = await runWorkflow(api, admin, 'belief-synthesis');

    // Assess
    expect(decay).toMatchObject({ status: 'succeeded', result: { evaluated: 2, decayed: 2, revised: 2, expired: 0 } });
    for (const { id } of [city, name]) {
      const history = (await mia.history(id)).body.items;
      expect(history.map((revision) => [revision.revision, revision.status])).toEqual([
        [1, 'mature'],
        [2, 'provisional'],
      ]);
    }

    // Act: past 180 days
    clock.advanceDays(120);

    // Assess: expired on read, and written down by the next synthesis
    expect((await mia.belief(city.id)).body).toMatchObject({ status: 'expired', applied: false });
    const expiry = await runWorkflow(api, admin, 'belief-synthesis');
    expect(expiry).toMatchObject({ status: 'succeeded', result: { evaluated: 2, expired: 2, revised: 2 } });
    for (const { id } of [city, name]) {
      const history = (await mia.history(id)).body.items;
      expect(history.map((revision) => revision.status)).toEqual(['mature', 'provisional', 'expired']);
      expect((await mia.belief(id)).body).toMatchObject({ status: 'expired', revision: 3 });
    }
    const expired = (await mia.beliefs('?status=expired')).body.items;
    expect(expired.map((belief) => belief.id).sort()).toEqual([city.id, name.id].sort());
    expect((await mia.applied('coder')).body.values).toEqual({});
  });
});

describe('API: learned memory, edges found in review', () => {
  const clock = new ManualClock('2026-05-01T09:00:00.000Z');
  let api: LocalApi;

  beforeAll(async () => {
    api = await LocalApi.start({ clock });
  });

  afterAll(async () => {
    await api.stop();
  });

  const learner = async (sub: string): Promise<Learner> => learnerOf(api, await api.token({ tenant: 'acme', sub }));

  it("reaches an agent's belief by id whatever the length of the agent's name", async () => {
    const learner_ = await learner('long-agent-name');
    const agent = 'customer-support-assistant-v2-eu-west-with-a-long-name';

    const learned = onlyBelief(await learner_.append('s1', signal('tone', 'warm', { agent, basis: 'declarative' })));

    expect(learned.id.length).toBeGreaterThan(64);
    expect((await learner_.belief(learned.id)).status).toBe(200);
    expect((await learner_.history(learned.id)).body.items).toHaveLength(1);
  });

  it('forgets for good: history starts after the forgetting, and a replayed request teaches nothing', async () => {
    const learner_ = await learner('forgetful');
    const replayable = { 'idempotency-key': 'teach-old-value' };
    const first = onlyBelief(
      await learner_.append('s1', signal('editor', 'old-value', { basis: 'declarative' }), replayable),
    );
    clock.advance(1000);
    expect((await learner_.forget(first.id, first.etag)).status).toBe(204);
    clock.advance(1000);

    const replayed = await learner_.append('s1', signal('editor', 'old-value', { basis: 'declarative' }), replayable);
    const relearned = onlyBelief(await learner_.append('s2', signal('editor', 'new-value', { basis: 'declarative' })));
    const history = await learner_.history(relearned.id);

    expect(replayed.status).toBe(201);
    expect(replayed.body.beliefs).toEqual([]);
    expect(relearned.values.map(({ value }) => value)).toEqual(['new-value']);
    expect(JSON.stringify(history.body)).not.toContain('old-value');
    expect(history.body.items.map(({ revision }) => revision)).toEqual([relearned.revision]);
  });

  it("folds a correction's wanted and did into one revision, conforming to the key's cardinality", async () => {
    const learner_ = await learner('corrector');
    const topics = onlyBelief(
      await learner_.append('s1', signal('topics', 'rust', { cardinality: 'multi', basis: 'declarative' })),
    );

    const corrected = await learner_.append('s1', {
      type: 'correction',
      aspect: 'topics',
      did: 'rust',
      wanted: 'go',
      agent: 'coder',
    });

    expect(corrected.status).toBe(201);
    expect(corrected.body.beliefs).toHaveLength(1);
    expect(corrected.body.beliefs[0]).toMatchObject({ id: topics.id, revision: 2, cardinality: 'multi' });
  });

  it('refuses to take back a value the belief never held, and changes nothing', async () => {
    const learner_ = await learner('retractor');
    const learned = onlyBelief(await learner_.append('s1', signal('tone', 'warm', { basis: 'declarative' })));

    const refused = await learner_.correct(learned.id, { retract: 'never-held' }, learned.etag);

    expect(refused.status).toBe(422);
    expect((refused.body as unknown as ErrorBody).error.issues).toEqual([
      { path: 'retract', message: 'not one of the values of this belief' },
    ]);
    expect((await learner_.belief(learned.id)).body.revision).toBe(1);
  });

  it('keeps card numbers out of keys and values even when glued to letters', async () => {
    const learner_ = await learner('glued');

    const inKey = await learner_.append('s1', signal('n4111111111111111', 'x'));
    const inValue = await learner_.append('s1', signal('card', 'card4111111111111111'));

    expect(inKey.status).toBe(422);
    expect((inKey.body as unknown as ErrorBody).error.issues).toEqual([
      { path: 'body.key', message: 'a key holds no run of 12 or more digits' },
    ]);
    expect(inValue.status).toBe(422);
    expect((inValue.body as unknown as ErrorBody).error.reasons).toEqual(['pii.payment_card']);
    expect((await learner_.beliefs('?agent=coder')).body.items).toEqual([]);
  });

  it('refuses session ids in the reserved memory-hub- space', async () => {
    const learner_ = await learner('reserved');

    const response = await learner_.append('memory-hub-correction', signal('tone', 'warm'));

    expect(response.status).toBe(404);
  });
});
