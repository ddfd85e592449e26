import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string; text: string; revision: number };
type Hit = {
  id: string;
  kind: string;
  score: number;
  features: Record<string, number>;
  record: Record<string, unknown>;
};
type SearchAnswer = { hits: Hit[]; strategy: string; limitations: { code: string }[] };

const STRATEGIES = ['recency', 'keyword', 'semantic', 'hybrid', 'graph'] as const;

/**
 * Search and context over the real local server: every strategy finds what the caller may read, shows it as its
 * own GET does, and never discloses what the canonical store would refuse — even while the search index is
 * stale because its consumer is held back (reference 002 TEST-09).
 */
describe('API: retrieval', () => {
  let api: LocalApi;
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    api = await LocalApi.start({ clock });
    tokens.alice = await api.token({ sub: 'alice', groups: ['project:p7:member'] });
    tokens.bob = await api.token({ sub: 'bob' });
    tokens.otherTenant = await api.token({ tenant: 'globex', sub: 'alice', groups: ['project:p7:member'] });
    tokens.nonMember = await api.token({ sub: 'carol' });
  });
  afterAll(async () => {
    await api.stop();
  });

  const note = async (text: string, options: { tags?: string[]; path?: string; token?: string } = {}) => {
    const created = await api.request<Note>('POST', options.path ?? '/v1/notes', {
      token: options.token ?? tokens.alice,
      body: { text, tags: options.tags ?? [] },
    });
    expect(created.status).toBe(201);
    clock.advance(1000);
    return created.body;
  };
  const search = (body: Record<string, unknown>, token = tokens.alice as string) =>
    api.request<SearchAnswer>('POST', '/v1/search', { token, body });
  const indexed = () => api.server.relay.idle();

  describe('every strategy', () => {
    let lisbon: Note;
    let budget: Note;
    beforeAll(async () => {
      lisbon = await note('Team offsite in Lisbon: book the hotel near Alfama', { tags: ['offsite'] });
      budget = await note('The offsite budget is 12k EUR, approved by Dana', { tags: ['offsite', 'budget'] });
      await note('Rotate the staging database credentials every quarter', { tags: ['security'] });
      await indexed();
    });

    for (const strategy of STRATEGIES) {
      it(`${strategy}: finds the caller's notes and shows each as its own GET does`, async () => {
        // Act
        const answer = await search({ query: 'offsite hotel Lisbon', strategy, k: 3 });

        // Assess
        expect(answer.status).toBe(200);
        expect(answer.body.strategy).toBe(strategy);
        expect(answer.body.hits.length).toBeGreaterThan(0);
        const ids = answer.body.hits.map((hit) => hit.id);
        if (strategy !== 'recency') expect(ids[0]).toBe(lisbon.id);
        for (const hit of answer.body.hits) {
          const own = await api.request<Record<string, unknown>>('GET', `/v1/notes/${hit.id}`, { token: tokens.alice });
          expect(hit.record).toEqual(own.body);
          expect(Object.keys(hit.features).length).toBeGreaterThan(0);
        }
      });
    }

    it('graph: reaches a related note by a shared tag, and says over which edge', async () => {
      // Act
      const answer = await search({ query: 'hotel near Alfama', strategy: 'graph', k: 2 });

      // Assess
      const reached = answer.body.hits.find((hit) => hit.id === budget.id) as Hit & {
        graph?: { hops: number; via: { type: string; value: string }[] };
      };
      expect(reached?.graph?.hops).toBe(1);
      expect(reached?.graph?.via).toContainEqual({ type: 'tag', value: 'offsite' });
    });

    it('recency: newest first, and the filters narrow every strategy', async () => {
      // Act
      const recent = await search({ strategy: 'recency', k: 10, filters: { tags: ['offsite'] } });
      const filtered = await search({ query: 'offsite', strategy: 'keyword', filters: { tags: ['budget'] } });

      // Assess
      expect(recent.body.hits.map((hit) => hit.id)).toEqual([budget.id, lisbon.id]);
      expect(filtered.body.hits.map((hit) => hit.id)).toEqual([budget.id]);
    });
  });

  describe('never discloses what the canonical store would refuse (TEST-09), even in the same second', () => {
    for (const change of ['deleted', 'expired', 'corrected'] as const) {
      it(`a note ${change} while the index is held back appears on no strategy, in search or context`, async () => {
        // Prepare: indexed, then the index held back while the record changes
        const word = `quokka${change}`;
        const target = await note(`The ${word} incident report is confidential`, { tags: [`t-${change}`] });
        await indexed();
        const release = api.holdSearchIndexBack();
        try {
          if (change === 'deleted') {
            const deleted = await api.request('DELETE', `/v1/notes/${target.id}`, {
              token: tokens.alice,
              headers: { 'if-match': target.etag },
            });
            expect(deleted.status).toBe(204);
          } else if (change === 'corrected') {
            const revised = await api.request('PATCH', `/v1/notes/${target.id}`, {
              token: tokens.alice,
              headers: { 'if-match': target.etag },
              body: { text: 'Nothing to see here any more' },
            });
            expect(revised.status).toBe(200);
          } else clock.advance(400 * 86_400_000);
          await indexed();

          // Act
          const answers = await Promise.all(
            STRATEGIES.map((strategy) => search({ query: `${word} incident`, strategy, k: 50 })),
          );
          const context = await api.request<{ items: { id: string; text: string }[] }>('POST', '/v1/context', {
            token: tokens.alice,
            body: { query: `${word} incident`, maxTokens: 4000 },
          });

          // Assess
          for (const answer of answers) {
            expect(answer.status).toBe(200);
            expect(JSON.stringify(answer.body)).not.toContain(word);
            if (change !== 'corrected') expect(answer.body.hits.map((hit) => hit.id)).not.toContain(target.id);
          }
          expect(JSON.stringify(context.body)).not.toContain(word);
        } finally {
          release();
        }
      });
    }
  });

  describe('isolation: nothing of another scope, on every strategy', () => {
    let secret: Note;
    let team: Note;
    beforeAll(async () => {
      secret = await note('Alice private wombat negotiation notes', { tags: ['wombat'] });
      team = await note('Project wombat launch checklist', { tags: ['wombat'], path: '/v1/projects/p7/notes' });
      await note('Agent scratchpad about the wombat', { path: '/v1/notes?agent=planner' });
      await indexed();
    });

    for (const strategy of STRATEGIES) {
      it(`${strategy}: another principal, another tenant and another agent's narrowing find nothing`, async () => {
        // Act
        const query = {
          query: 'wombat',
          strategy,
          k: 50,
          filters: strategy === 'recency' ? { tags: ['wombat'] } : undefined,
        };
        const bob = await search(query, tokens.bob);
        const otherTenant = await search(query, tokens.otherTenant);
        const otherTenantProject = await search({ ...query, project: 'p7' }, tokens.otherTenant);
        const otherAgent = await search({ ...query, agent: 'reviewer' });
        const own = await search(query);

        // Assess
        for (const answer of [bob, otherTenant, otherTenantProject, otherAgent]) {
          expect(answer.status).toBe(200);
          expect(answer.body.hits).toEqual([]);
        }
        expect(own.body.hits.map((hit) => hit.id)).toContain(secret.id);
        expect(own.body.hits.map((hit) => hit.id)).not.toContain(team.id);
      });
    }

    it('a non-member of the project gets the answer of a project that does not exist', async () => {
      // Act
      const member = await search({ query: 'wombat', project: 'p7' });
      const nonMember = await search({ query: 'wombat', project: 'p7' }, tokens.nonMember);
      const missing = await search({ query: 'wombat', project: 'p-none' }, tokens.nonMember);

      // Assess
      expect(member.body.hits.map((hit) => hit.id)).toEqual([team.id]);
      const withoutRequestId = (body: unknown) => {
        const copy = structuredClone(body) as { error?: { requestId?: string } };
        delete copy.error?.requestId;
        return copy;
      };
      expect(nonMember.status).toBe(404);
      expect([nonMember.status, withoutRequestId(nonMember.body)]).toEqual([
        missing.status,
        withoutRequestId(missing.body),
      ]);
    });
  });

  describe('bad input: a 422 naming the field, nothing echoed', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['an unknown strategy', { query: 'x', strategy: 'telepathy' }, 'body.strategy'],
      ['an unknown kind', { query: 'x', kinds: ['note', 'diary'] }, 'body.kinds.1'],
      ['k out of range', { query: 'x', k: 51 }, 'body.k'],
      ['an oversized query', { query: 'x'.repeat(2001) }, 'body.query'],
      ['no query for a ranking strategy', { strategy: 'keyword' }, 'body.query'],
      ['an agent narrowing with a project', { query: 'x', agent: 'planner', project: 'apollo' }, 'body.agent'],
    ];
    for (const [name, body, field] of cases) {
      it(`${name}`, async () => {
        // Act
        const answer = await api.request<{ error: { issues?: { path: string }[] } }>('POST', '/v1/search', {
          token: tokens.alice,
          body,
        });

        // Assess
        expect(answer.status).toBe(422);
        expect(answer.body.error.issues?.map((issue) => issue.path)).toContain(field);
        expect(JSON.stringify(answer.body)).not.toContain('telepathy');
        expect(JSON.stringify(answer.body)).not.toContain('diary');
      });
    }
  });

  it('lets a client holding only the read scope search and assemble context', async () => {
    // Prepare
    const reader = await api.token({ sub: 'alice', scopes: ['memory-hub/memory.read'] });

    // Act
    const searched = await search({ query: 'anything at all' }, reader);
    const context = await api.request('POST', '/v1/context', {
      token: reader,
      body: { query: 'anything', maxTokens: 100 },
    });

    // Assess
    expect([searched.status, context.status]).toEqual([200, 200]);
  });

  describe('context', () => {
    it('stays within maxTokens, carries each item’s id, revision, kind, status and source, and says what it cut', async () => {
      // Prepare
      for (let n = 0; n < 8; n++) await note(`Capybara care log entry ${n}: ${'fed and watered. '.repeat(20)}`);
      await indexed();

      // Act
      const context = await api.request<{
        items: { id: string; revision: number; kind: string; status: string; source: unknown; tokens: number }[];
        tokens: number;
        limitations: { code: string }[];
      }>('POST', '/v1/context', { token: tokens.alice, body: { query: 'capybara care', maxTokens: 300 } });

      // Assess
      expect(context.status).toBe(200);
      expect(context.body.tokens).toBeLessThanOrEqual(300);
      expect(context.body.items.reduce((sum, item) => sum + item.tokens, 0)).toBe(context.body.tokens);
      expect(context.body.items.length).toBeGreaterThan(0);
      for (const item of context.body.items)
        expect(item).toMatchObject({
          revision: 1,
          kind: 'note',
          status: 'active',
          source: { owner: { type: 'principal' } },
        });
      expect(context.body.limitations.map((limitation) => limitation.code)).toContain('context-truncated');
    });
  });
});
