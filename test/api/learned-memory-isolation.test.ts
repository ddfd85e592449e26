import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredSignal as declared } from '../support/learning-events.ts';
import { LocalApi, tokenLookup } from '../support/local-api.ts';

type Belief = {
  id: string;
  key: string;
  kind: string;
  agent?: string;
  etag: string;
  revision: number;
  applied: boolean;
  appliedValue?: unknown;
};
type BeliefPage = { items: Belief[]; nextCursor?: string };
type Appended = { event: { id: string }; beliefs: Belief[] };
type Applied = { values: Record<string, { value: unknown; source: string; belief?: { id: string } }> };
type ErrorBody = { error: { code: string; message: string; requestId?: string } };

const ALICE_SESSION = 'alice-session-1';
// Values no one else states, so that finding them anywhere outside Alice's own view is a leak.
const PROFILE_VALUE = 'zz-alice-role-architect';
const CODER_VALUE = 'zz-alice-style-functional';

/**
 * Tenants acme and globex, principals alice and bob: what Alice has learned answers everyone else exactly as
 * a belief that does not exist, on every path, and one agent's preferences never reach another agent.
 */
describe('API: isolation of learned memory across tenants, principals and agents', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  const token = tokenLookup(tokens);
  let profile: Belief;
  let coder: Belief;

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.alice = await api.token({ tenant: 'acme', sub: 'alice' });
    tokens.bob = await api.token({ tenant: 'acme', sub: 'bob' });
    tokens.globexAlice = await api.token({ tenant: 'globex', sub: 'alice' });
    tokens.globexBob = await api.token({ tenant: 'globex', sub: 'bob' });

    const learn = async (body: unknown): Promise<Belief> => {
      const response = await api.request<Appended>('POST', `/v1/sessions/${ALICE_SESSION}/events`, {
        token: token('alice'),
        body,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const belief = response.body.beliefs[0];
      if (belief === undefined) throw new Error('the signal taught nothing');
      return belief;
    };
    profile = await learn(declared('role.title', PROFILE_VALUE, { kind: 'profile' }));
    coder = await learn(declared('code.style', CODER_VALUE, { agent: 'coder' }));
  });

  afterAll(async () => {
    await api.stop();
  });

  /** A well-formed belief id of the same kind and agent that exists nowhere. */
  const madeUp = (id: string): string => id.replace(/[^.]+$/, 'A'.repeat(22));

  /** The answer without the request id, which differs on every request. */
  const answer = async (
    method: string,
    path: string,
    tokenValue: string,
    extra: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await api.request<ErrorBody>(method, path, { token: tokenValue, ...extra });
    if (response.body.error !== undefined) delete response.body.error.requestId;
    return { status: response.status, body: response.body };
  };

  const paths = (belief: () => Belief) => [
    { name: 'get', method: 'GET', path: (id: string) => `/v1/beliefs/${id}`, extra: () => ({}) },
    { name: 'history', method: 'GET', path: (id: string) => `/v1/beliefs/${id}/history`, extra: () => ({}) },
    {
      name: 'patch',
      method: 'PATCH',
      path: (id: string) => `/v1/beliefs/${id}`,
      extra: () => ({ headers: { 'if-match': belief().etag }, body: { value: 'taken-over' } }),
    },
    {
      name: 'delete',
      method: 'DELETE',
      path: (id: string) => `/v1/beliefs/${id}`,
      extra: () => ({ headers: { 'if-match': belief().etag } }),
    },
  ];

  const outsiders = ['bob', 'globexAlice', 'globexBob'] as const;
  const beliefs = [
    { name: 'profile fact', belief: () => profile },
    { name: "coder's preference", belief: () => coder },
  ];

  for (const outsider of outsiders) {
    describe(`a caller who is ${outsider}`, () => {
      for (const { name, belief } of beliefs) {
        for (const testCase of paths(belief)) {
          it(`gets the same 404 as for a missing belief on ${testCase.name} of Alice's ${name}`, async () => {
            // Act
            const foreign = await answer(
              testCase.method,
              testCase.path(belief().id),
              token(outsider),
              testCase.extra(),
            );
            const missing = await answer(
              testCase.method,
              testCase.path(madeUp(belief().id)),
              token(outsider),
              testCase.extra(),
            );

            // Assess
            expect(foreign.status).toBe(404);
            expect(foreign).toEqual(missing);
            expect(JSON.stringify(foreign.body)).not.toContain('zz-alice');
          });
        }
      }

      it("lists none of Alice's beliefs, whatever the filter", async () => {
        for (const query of ['', '?kind=profile', '?kind=preference&agent=coder', '?agent=coder', '?status=mature']) {
          const listed = await api.request<BeliefPage>('GET', `/v1/beliefs${query}`, { token: token(outsider) });
          expect(listed.status, query).toBe(200);
          expect(listed.body.items, query).toEqual([]);
        }
      });

      it("resets nothing of Alice's", async () => {
        // Act
        const resets = [
          await api.request<{ reset: number }>('POST', '/v1/beliefs/reset', {
            token: token(outsider),
            body: { kind: 'profile' },
          }),
          await api.request<{ reset: number }>('POST', '/v1/beliefs/reset', {
            token: token(outsider),
            body: { kind: 'preference', agent: 'coder' },
          }),
        ];

        // Assess
        for (const reset of resets) expect(reset).toMatchObject({ status: 200, body: { reset: 0 } });
        for (const belief of [profile, coder]) {
          const own = await api.request<Belief>('GET', `/v1/beliefs/${belief.id}`, { token: token('alice') });
          expect(own.status).toBe(200);
          expect(own.body).toMatchObject({ revision: belief.revision, etag: belief.etag, applied: true });
        }
      });

      it("sees none of the events of Alice's session", async () => {
        const listed = await api.request<{ items: unknown[] }>('GET', `/v1/sessions/${ALICE_SESSION}/events`, {
          token: token(outsider),
        });

        expect(listed.status).toBe(200);
        expect(listed.body.items).toEqual([]);
      });

      it("receives none of Alice's values in the applied view", async () => {
        for (const agent of ['coder', 'writer']) {
          const view = await api.request<Applied>('GET', `/v1/applied?agent=${agent}`, { token: token(outsider) });

          expect(view.status).toBe(200);
          expect(view.body.values['role.title']).toBeUndefined();
          expect(view.body.values['code.style']).toBeUndefined();
          expect(JSON.stringify(view.body)).not.toContain('zz-alice');
        }
      });
    });
  }

  it('gives a principal who learns the same keys their own beliefs under the same ids, never Alice’s', async () => {
    // Prepare: ids derive from kind, agent and key, so Dave's ids are Alice's.
    const dave = await api.token({ tenant: 'acme', sub: 'dave' });
    const learned = await api.request<Appended>('POST', '/v1/sessions/dave-session/events', {
      token: dave,
      body: declared('code.style', 'procedural', { agent: 'coder' }),
    });
    const davesCoder = learned.body.beliefs[0];

    // Act
    const read = await api.request<Belief>('GET', `/v1/beliefs/${coder.id}`, { token: dave });
    const view = await api.request<Applied>('GET', '/v1/applied?agent=coder', { token: dave });
    const alicesRead = await api.request<Belief>('GET', `/v1/beliefs/${coder.id}`, { token: token('alice') });

    // Assess
    expect(davesCoder?.id).toBe(coder.id);
    expect(read.body).toMatchObject({ appliedValue: 'procedural', revision: 1 });
    expect(JSON.stringify(read.body)).not.toContain('zz-alice');
    expect(view.body.values['code.style']).toMatchObject({ value: 'procedural', source: 'personal' });
    expect(alicesRead.body).toMatchObject({ appliedValue: CODER_VALUE, revision: coder.revision });
  });

  describe('Agent narrowing', () => {
    let writer: Belief;

    beforeAll(async () => {
      const response = await api.request<Appended>('POST', `/v1/sessions/${ALICE_SESSION}/events`, {
        token: token('alice'),
        body: declared('writing.voice', 'active', { agent: 'writer' }),
      });
      expect(response.status).toBe(201);
      writer = response.body.beliefs[0] as Belief;
    });

    it("never lists the coder's preference among the writer's", async () => {
      for (const query of ['?agent=writer', '?agent=writer&kind=preference', '?agent=writer&status=mature']) {
        const listed = await api.request<BeliefPage>('GET', `/v1/beliefs${query}`, { token: token('alice') });

        expect(listed.status, query).toBe(200);
        expect(
          listed.body.items.map((belief) => belief.id),
          query,
        ).not.toContain(coder.id);
        expect(
          listed.body.items.map((belief) => belief.key),
          query,
        ).not.toContain('code.style');
        expect(
          listed.body.items.every((belief) => belief.agent === 'writer'),
          query,
        ).toBe(true);
      }
      const writers = await api.request<BeliefPage>('GET', '/v1/beliefs?agent=writer&kind=preference', {
        token: token('alice'),
      });
      expect(writers.body.items.map((belief) => belief.id)).toEqual([writer.id]);
    });

    it("lists the coder's preference for the coder", async () => {
      const listed = await api.request<BeliefPage>('GET', '/v1/beliefs?agent=coder&kind=preference', {
        token: token('alice'),
      });

      expect(listed.body.items.map((belief) => [belief.id, belief.agent, belief.appliedValue])).toEqual([
        [coder.id, 'coder', CODER_VALUE],
      ]);
    });

    it("applies the coder's preference to the coder only, and the profile fact to every agent", async () => {
      // Act
      const forWriter = (await api.request<Applied>('GET', '/v1/applied?agent=writer', { token: token('alice') })).body;
      const forCoder = (await api.request<Applied>('GET', '/v1/applied?agent=coder', { token: token('alice') })).body;

      // Assess
      expect(forWriter.values['code.style']).toBeUndefined();
      expect(JSON.stringify(forWriter)).not.toContain(CODER_VALUE);
      expect(forWriter.values['writing.voice']).toMatchObject({ value: 'active', source: 'personal' });
      expect(forWriter.values['role.title']).toMatchObject({ value: PROFILE_VALUE, source: 'personal' });
      expect(forCoder.values['code.style']).toEqual({
        value: CODER_VALUE,
        source: 'personal',
        belief: { id: coder.id, kind: 'preference' },
      });
      expect(forCoder.values['writing.voice']).toBeUndefined();
      expect(forCoder.values['role.title']).toMatchObject({ value: PROFILE_VALUE });
    });

    it("keeps one agent's value for a key from the other agent's value for the same key", async () => {
      // Prepare
      const response = await api.request<Appended>('POST', `/v1/sessions/${ALICE_SESSION}/events`, {
        token: token('alice'),
        body: declared('code.style', 'zz-alice-writer-style', { agent: 'writer' }),
      });
      const writersStyle = response.body.beliefs[0];

      // Act
      const forWriter = (await api.request<Applied>('GET', '/v1/applied?agent=writer', { token: token('alice') })).body;
      const forCoder = (await api.request<Applied>('GET', '/v1/applied?agent=coder', { token: token('alice') })).body;
      const coderBelief = await api.request<Belief>('GET', `/v1/beliefs/${coder.id}`, { token: token('alice') });

      // Assess
      expect(writersStyle?.id).not.toBe(coder.id);
      expect(forWriter.values['code.style']).toMatchObject({ value: 'zz-alice-writer-style' });
      expect(forCoder.values['code.style']).toMatchObject({ value: CODER_VALUE });
      expect(coderBelief.body).toMatchObject({ appliedValue: CODER_VALUE, revision: coder.revision });
    });

    it("does not reset the coder's preferences when the writer's are reset", async () => {
      // Prepare
      const other = await api.token({ tenant: 'acme', sub: 'erin' });
      const learn = (agent: string) =>
        api.request<Appended>('POST', '/v1/sessions/erin-session/events', {
          token: other,
          body: declared('erin.pace', `zz-erin-${agent}`, { agent }),
        });
      const coders = (await learn('coder')).body.beliefs[0] as Belief;
      await learn('writer');

      // Act
      const reset = await api.request<{ reset: number }>('POST', '/v1/beliefs/reset', {
        token: other,
        body: { kind: 'preference', agent: 'writer' },
      });

      // Assess
      expect(reset.body).toEqual({ reset: 1 });
      expect((await api.request('GET', `/v1/beliefs/${coders.id}`, { token: other })).status).toBe(200);
      const forWriter = await api.request<Applied>('GET', '/v1/applied?agent=writer', { token: other });
      expect(forWriter.body.values['erin.pace']).toBeUndefined();
    });
  });
});
