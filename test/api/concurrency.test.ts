import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string; revision: number; text: string };

describe('API: optimistic concurrency', () => {
  let api: LocalApi;
  let token: string;

  beforeAll(async () => {
    api = await LocalApi.start();
    token = await api.token({ sub: 'racer' });
  });

  afterAll(async () => {
    await api.stop();
  });

  it('gives exactly one of 20 concurrent PATCHes with the same If-Match a 200, and the rest 412', async () => {
    // Prepare
    const created = await api.request<Note>('POST', '/v1/notes', { token, body: { text: 'start' } });
    const path = `/v1/notes/${created.body.id}`;

    // Act
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, writer) =>
        api.request<Note>('PATCH', path, {
          token,
          headers: { 'if-match': created.body.etag },
          body: { text: `writer ${writer}` },
        }),
      ),
    );

    // Assess
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(19);
    const winner = responses.find((response) => response.status === 200) as (typeof responses)[number];
    for (const loser of responses.filter((response) => response.status === 412)) {
      expect(loser.headers.get('etag')).toBe(winner.body.etag);
    }
    const history = await api.request<{ items: Note[] }>('GET', `${path}/history`, { token });
    expect(history.body.items.map((note) => note.revision)).toEqual([1, 2]);
    expect(history.body.items[1]?.text).toBe(winner.body.text);
  });

  it('keeps revisions contiguous and loses nothing when writers retry with the ETag they are given', async () => {
    const created = await api.request<Note>('POST', '/v1/notes', { token, body: { text: 'counter' } });
    const path = `/v1/notes/${created.body.id}`;

    const writer = async (name: number) => {
      let etag = created.body.etag;
      for (let attempt = 0; attempt < 100; attempt++) {
        const response = await api.request<Note>('PATCH', path, {
          token,
          headers: { 'if-match': etag },
          body: { text: `writer ${name}` },
        });
        if (response.status === 200) return attempt;
        expect(response.status).toBe(412);
        etag = response.headers.get('etag') as string;
      }
      throw new Error('writer never got through');
    };
    await Promise.all(Array.from({ length: 20 }, (_, name) => writer(name)));

    const history = await api.request<{ items: Note[] }>('GET', `${path}/history?limit=100`, { token });
    expect(history.body.items.map((note) => note.revision)).toEqual(
      Array.from({ length: 21 }, (_, index) => index + 1),
    );
    expect(new Set(history.body.items.slice(1).map((note) => note.text)).size).toBe(20);
  });
});
