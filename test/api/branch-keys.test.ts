import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

/**
 * Local mode runs the KMS hierarchical keyring as AWS does, with KMS played in process: the cost report counts
 * every call the key store makes to it, so what a request costs in KMS calls here is what it costs in AWS.
 */
describe('Local mode: branch keys per scope', () => {
  let api: LocalApi;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    api = await LocalApi.start();
    alice = await api.token({ sub: 'alice' });
    bob = await api.token({ sub: 'bob' });
  });
  afterAll(() => api?.stop());

  const keyCallsOf = (operation: string) => api.server.costs.report()[operation]?.keyOperations ?? 0;

  it('makes no KMS call for warm requests: a principal’s writes after its first one, and its reads', async () => {
    // Prepare: alice's first write creates her branch key and has the local KMS unwrap it
    const first = await api.request('POST', '/v1/notes', { token: alice, body: { text: 'first', tags: [] } });
    expect(first.status).toBe(201);
    const cold = keyCallsOf('createNote');

    // Act
    const second = await api.request('POST', '/v1/notes', { token: alice, body: { text: 'second', tags: [] } });
    const listed = await api.request<{ items: { text: string }[] }>('GET', '/v1/notes', { token: alice });

    // Assess
    expect(second.status).toBe(201);
    expect(listed.body.items.map((note) => note.text).sort()).toEqual(['first', 'second']);
    expect(cold).toBeGreaterThan(0);
    expect(keyCallsOf('createNote')).toBe(cold);
    expect(keyCallsOf('listNotes')).toBe(0);
  });

  it('calls KMS for another principal’s first write: each principal has a branch key of its own', async () => {
    // Prepare
    const before = keyCallsOf('createNote');

    // Act
    const created = await api.request('POST', '/v1/notes', { token: bob, body: { text: 'bob’s first', tags: [] } });

    // Assess: the key created (two data keys generated, one re-encrypted) and unwrapped
    expect(created.status).toBe(201);
    expect(keyCallsOf('createNote') - before).toBe(4);
  });
});
