import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string };

/**
 * Tenants A and B, principals X and Y: whatever one of them holds answers every other caller exactly as a
 * record that does not exist, on every path.
 */
describe('API: isolation across tenants, principals and projects', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  let owned: Note;
  let project: Note;
  const missingId = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.owner = await api.token({ tenant: 'tenant-a', sub: 'principal-x', groups: ['project:p7:member'] });
    tokens.samePrincipalOtherTenant = await api.token({
      tenant: 'tenant-b',
      sub: 'principal-x',
      groups: ['project:p7:member'],
    });
    tokens.otherPrincipalSameTenant = await api.token({ tenant: 'tenant-a', sub: 'principal-y' });
    tokens.otherPrincipalOtherTenant = await api.token({ tenant: 'tenant-b', sub: 'principal-y' });
    owned = (await api.request<Note>('POST', '/v1/notes', { token: tokens.owner, body: { text: 'x in a' } })).body;
    project = (
      await api.request<Note>('POST', '/v1/projects/p7/notes', { token: tokens.owner, body: { text: 'p7 in a' } })
    ).body;
  });

  afterAll(async () => {
    await api.stop();
  });

  const outsiders = ['samePrincipalOtherTenant', 'otherPrincipalSameTenant', 'otherPrincipalOtherTenant'] as const;

  /** The body of a 404 for an id that exists nowhere, with the request id taken out. */
  const missingAnswer = async (
    method: string,
    path: string,
    token: string,
    extra: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await api.request<{ error: { requestId?: string } }>(method, path, { token, ...extra });
    delete response.body.error.requestId;
    return { status: response.status, body: response.body };
  };

  const cases = (note: () => Note, base: string) => [
    { name: 'get', method: 'GET', path: () => `${base}/${note().id}`, extra: () => ({}) },
    { name: 'history', method: 'GET', path: () => `${base}/${note().id}/history`, extra: () => ({}) },
    {
      name: 'patch',
      method: 'PATCH',
      path: () => `${base}/${note().id}`,
      extra: () => ({ headers: { 'if-match': note().etag }, body: { text: 'taken over' } }),
    },
    {
      name: 'delete',
      method: 'DELETE',
      path: () => `${base}/${note().id}`,
      extra: () => ({ headers: { 'if-match': note().etag } }),
    },
  ];

  for (const outsider of outsiders) {
    describe(`a caller with ${outsider}`, () => {
      for (const testCase of cases(() => owned, '/v1/notes')) {
        it(`gets the same 404 as for a missing note on ${testCase.name}`, async () => {
          const token = tokens[outsider] as string;
          const foreign = await missingAnswer(testCase.method, testCase.path(), token, testCase.extra());
          const missing = await missingAnswer(
            testCase.method,
            testCase.path().replace(owned.id, missingId),
            token,
            testCase.extra(),
          );

          expect(foreign.status).toBe(404);
          expect(foreign).toEqual(missing);
        });
      }

      it('does not see the note in a list', async () => {
        const listed = await api.request<{ items: Note[] }>('GET', '/v1/notes?limit=100', {
          token: tokens[outsider] as string,
        });
        expect(listed.status).toBe(200);
        expect(listed.body.items.map((note) => note.id)).not.toContain(owned.id);
      });
    });
  }

  describe('a caller outside project p7 of tenant A', () => {
    const base = '/v1/projects/p7/notes';

    for (const testCase of cases(() => project, base)) {
      it(`gets 404 on ${testCase.name} of a project note, as for a missing note`, async () => {
        for (const outsider of ['otherPrincipalSameTenant', 'otherPrincipalOtherTenant'] as const) {
          const token = tokens[outsider] as string;
          const foreign = await missingAnswer(testCase.method, testCase.path(), token, testCase.extra());
          const missing = await missingAnswer(
            testCase.method,
            testCase.path().replace(project.id, missingId),
            token,
            testCase.extra(),
          );
          expect(foreign.status).toBe(404);
          expect(foreign).toEqual(missing);
        }
      });
    }

    it('gets 404 listing or creating in the project', async () => {
      const token = tokens.otherPrincipalSameTenant as string;
      expect((await api.request('GET', base, { token })).status).toBe(404);
      expect((await api.request('POST', base, { token, body: { text: 'intruder' } })).status).toBe(404);
    });

    it('is not let in by a membership of the same project id in another tenant', async () => {
      const token = tokens.samePrincipalOtherTenant as string;
      expect((await api.request('GET', `${base}/${project.id}`, { token })).status).toBe(404);
      const listed = await api.request<{ items: Note[] }>('GET', base, { token });
      expect(listed.body.items.map((note) => note.id)).not.toContain(project.id);
    });
  });

  it("leaves the owner's notes untouched by every attempt", async () => {
    const note = await api.request<Note & { text: string; revision: number }>('GET', `/v1/notes/${owned.id}`, {
      token: tokens.owner,
    });
    const shared = await api.request<Note & { text: string; revision: number }>(
      'GET',
      `/v1/projects/p7/notes/${project.id}`,
      { token: tokens.owner },
    );
    expect(note.body).toMatchObject({ text: 'x in a', revision: 1 });
    expect(shared.body).toMatchObject({ text: 'p7 in a', revision: 1 });
  });
});
