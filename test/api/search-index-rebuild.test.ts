import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

type Note = { id: string };
type Run = { id: string; status: string; result?: Record<string, number> };
type SearchAnswer = { hits: { id: string }[] };

/**
 * The deployed reconciliation of the search index (issue 12): the `search-index-rebuild` workflow, daily in AWS
 * and on demand for an org admin, rebuilds each searchable namespace of the run's tenant from canonical heads.
 */
describe('API: the search index rebuild workflow', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.admin = await api.token({ tenant: 'acme', sub: 'boss', groups: ['org:admin'] });
    tokens.alice = await api.token({ tenant: 'acme', sub: 'alice' });
    tokens.globexAdmin = await api.token({ tenant: 'globex', sub: 'boss', groups: ['org:admin'] });
    tokens.globexAlice = await api.token({ tenant: 'globex', sub: 'alice' });
  });
  afterAll(async () => {
    await api.stop();
  });

  /** Runs `work` with the events the search index consumer would index dropped, as a lost delivery would. */
  const losingIndexEvents = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = api.holdSearchIndexBack();
    try {
      const result = await work();
      await api.server.relay.idle();
      return result;
    } finally {
      release();
    }
  };
  const note = async (token: string, text: string) => {
    const created = await api.request<Note>('POST', '/v1/notes', { token, body: { text } });
    expect(created.status).toBe(201);
    return created.body;
  };
  const found = async (token: string, query: string) =>
    (
      await api.request<SearchAnswer>('POST', '/v1/search', { token, body: { query, strategy: 'keyword' } })
    ).body.hits.map((hit) => hit.id);
  const rebuild = async (token: string) => {
    const started = await api.request<Run>('POST', '/v1/admin/workflows/search-index-rebuild', { token });
    expect(started.status).toBe(202);
    await api.server.backend.local.workflowRunner.idle();
    return (await api.request<Run>('GET', `/v1/admin/workflows/runs/${started.body.id}`, { token })).body;
  };

  it('puts back what lost index events left out, for the run’s tenant only', async () => {
    // Prepare: a note indexed as usual, then one note in each tenant whose index events are lost
    const indexed = await note(tokens.alice as string, 'Llama census: the herd counts forty-two');
    await api.server.relay.idle();
    const [lost, otherTenants] = await losingIndexEvents(() =>
      Promise.all([
        note(tokens.alice as string, 'Llama shearing is booked for the first week of May'),
        note(tokens.globexAlice as string, 'Llama feed order for the spring'),
      ]),
    );
    const before = await found(tokens.alice as string, 'llama');

    // Act
    const run = await rebuild(tokens.admin as string);

    // Assess: acme's index has both notes again; globex's note waits for globex's own run
    expect(before).toEqual([indexed.id]);
    expect(run.status).toBe('succeeded');
    expect(run.result?.indexesRebuilt).toBeGreaterThan(0);
    expect((await found(tokens.alice as string, 'llama')).sort()).toEqual([indexed.id, lost.id].sort());
    expect(await found(tokens.globexAlice as string, 'llama')).toEqual([]);
    await rebuild(tokens.globexAdmin as string);
    expect(await found(tokens.globexAlice as string, 'llama')).toEqual([otherTenants.id]);
  });

  it('is an org admin’s to start', async () => {
    // Act
    const refused = await api.request('POST', '/v1/admin/workflows/search-index-rebuild', { token: tokens.alice });

    // Assess
    expect(refused.status).toBe(403);
  });
});
