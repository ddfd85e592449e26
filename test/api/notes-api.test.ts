import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string; revision: number; text: string; tags: string[] };
type Page = { items: Note[]; nextCursor?: string };
type ErrorBody = {
  error: { code: string; message: string; requestId: string; issues?: { path: string; message: string }[] };
};

describe('API: notes over real HTTP', () => {
  let api: LocalApi;
  let alice: string;

  beforeAll(async () => {
    api = await LocalApi.start();
    alice = await api.token({ sub: 'alice', groups: ['project:p7:member'], client: 'coder-app' });
  });

  afterAll(async () => {
    await api.stop();
  });

  const create = async (body: unknown, path = '/v1/notes', token = alice) =>
    api.request<Note>('POST', path, { token, body });

  describe('System routes', () => {
    it('answers health without a token', async () => {
      const response = await api.request('GET', '/v1/health');
      expect(response).toMatchObject({ status: 200, body: { status: 'ok' } });
    });

    it('serves the committed OpenAPI document', async () => {
      const response = await api.request('GET', '/v1/openapi.json');
      const committed = JSON.parse(readFileSync('lambdas/generated/openapi.json', 'utf8'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual(committed);
    });
  });

  describe('Lifecycle', () => {
    it('creates, reads, lists, revises, shows history of and deletes a note', async () => {
      // Create
      const created = await create({ text: 'first thought', tags: ['idea'] });
      expect(created.status).toBe(201);
      expect(created.headers.get('etag')).toBe(created.body.etag);
      const location = created.headers.get('location') as string;
      expect(location).toBe(`/v1/notes/${created.body.id}`);

      // Read through Location
      const read = await api.request<Note>('GET', location, { token: alice });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ text: 'first thought', tags: ['idea'], revision: 1 });
      expect(read.headers.get('etag')).toBe(created.body.etag);

      // List
      const listed = await api.request<Page>('GET', '/v1/notes', { token: alice });
      expect(listed.body.items.map((note) => note.id)).toContain(created.body.id);

      // Revise
      const revised = await api.request<Note>('PATCH', location, {
        token: alice,
        headers: { 'if-match': created.body.etag },
        body: { text: 'second thought' },
      });
      expect(revised.status).toBe(200);
      expect(revised.body).toMatchObject({ revision: 2, text: 'second thought', tags: ['idea'] });
      expect(revised.headers.get('etag')).toBe(revised.body.etag);

      // History
      const history = await api.request<Page>('GET', `${location}/history`, { token: alice });
      expect(history.body.items.map((note) => [note.revision, note.text])).toEqual([
        [1, 'first thought'],
        [2, 'second thought'],
      ]);

      // Delete
      const deleted = await api.request('DELETE', location, {
        token: alice,
        headers: { 'if-match': revised.body.etag },
      });
      expect(deleted.status).toBe(204);
      expect((await api.request('GET', location, { token: alice })).status).toBe(404);
    });

    it('pages a list with an opaque cursor', async () => {
      const token = await api.token({ sub: 'pager' });
      for (let index = 0; index < 5; index++) await create({ text: `page note ${index}` }, '/v1/notes', token);

      const first = await api.request<Page>('GET', '/v1/notes?limit=2', { token });
      const rest = await api.request<Page>('GET', `/v1/notes?limit=10&cursor=${first.body.nextCursor}`, { token });

      expect(first.body.items.map((note) => note.text)).toEqual(['page note 0', 'page note 1']);
      expect(rest.body.items.map((note) => note.text)).toEqual(['page note 2', 'page note 3', 'page note 4']);
      expect(rest.body.nextCursor).toBeUndefined();
    });

    it("keeps an agent's notes under ?agent= apart from the principal's own", async () => {
      const token = await api.token({ sub: 'agent-owner' });
      const forCoder = await create({ text: 'coder only' }, '/v1/notes?agent=coder', token);

      expect(forCoder.headers.get('location')).toBe(`/v1/notes/${forCoder.body.id}?agent=coder`);
      expect((await api.request('GET', `/v1/notes/${forCoder.body.id}`, { token })).status).toBe(404);
      expect((await api.request('GET', `/v1/notes/${forCoder.body.id}?agent=writer`, { token })).status).toBe(404);
      expect((await api.request('GET', `/v1/notes/${forCoder.body.id}?agent=coder`, { token })).status).toBe(200);
    });

    it("shares project notes among the project's members", async () => {
      const bob = await api.token({ sub: 'bob', groups: ['project:p7:admin'] });
      const shared = await create({ text: 'team plan' }, '/v1/projects/p7/notes');

      const readByBob = await api.request<Note>('GET', `/v1/projects/p7/notes/${shared.body.id}`, { token: bob });
      const revisedByBob = await api.request<Note & { provenance: unknown }>(
        'PATCH',
        `/v1/projects/p7/notes/${shared.body.id}`,
        {
          token: bob,
          headers: { 'if-match': readByBob.body.etag },
          body: { tags: ['agreed'] },
        },
      );

      expect(readByBob.body.text).toBe('team plan');
      expect(revisedByBob.body.provenance).toMatchObject({
        createdBy: { principal: 'alice', client: 'coder-app' },
        revisedBy: { principal: 'bob' },
      });
    });
  });

  describe('Authentication', () => {
    const expectUnauthenticated = async (headers: Record<string, string>) => {
      const response = await api.request<ErrorBody>('GET', '/v1/notes', { headers });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('auth.unauthenticated');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    };

    it('refuses a missing token', async () => {
      await expectUnauthenticated({});
    });

    it('refuses a malformed token', async () => {
      await expectUnauthenticated({ authorization: 'Bearer not-a-jwt' });
      await expectUnauthenticated({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    });

    it('refuses an expired token', async () => {
      const token = await api.signedToken({
        sub: 'alice',
        'custom:tenant': 'acme',
        exp: Math.floor(Date.now() / 1000) - 5,
      });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('refuses a token signed with another key', async () => {
      const stranger = await LocalApi.start();
      try {
        const token = await stranger.token({ sub: 'alice' });
        await expectUnauthenticated({ authorization: `Bearer ${token}` });
      } finally {
        await stranger.stop();
      }
    });

    it('refuses a token whose signature does not cover its claims', async () => {
      const [header, , signature] = alice.split('.');
      const forged = Buffer.from(
        JSON.stringify({ sub: 'bob', 'custom:tenant': 'acme', client_id: 'coder-app' }),
      ).toString('base64url');
      await expectUnauthenticated({ authorization: `Bearer ${header}.${forged}.${signature}` });
    });

    it('refuses a token for a client the issuer never registered', async () => {
      const token = await api.signedToken({ sub: 'alice', 'custom:tenant': 'acme', client_id: 'rogue-client' });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('refuses an ID token where an access token is required', async () => {
      const token = await api.signedToken({ sub: 'alice', 'custom:tenant': 'acme', token_use: 'id' });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('refuses a verified token that carries no tenant', async () => {
      const token = await api.signedToken({ sub: 'alice' });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('lets no query, header or body field name a tenant or a principal', async () => {
      const asQuery = await api.request<ErrorBody>('GET', '/v1/notes?tenant=globex&sub=bob', { token: alice });
      const asBody = await create({ text: 'x', tenant: 'globex', principal: 'bob' });
      const asHeader = await api.request<Page>('GET', '/v1/notes', {
        token: alice,
        headers: { 'x-tenant': 'globex', 'x-principal': 'bob', 'x-amzn-oidc-identity': 'bob' },
      });

      expect(asQuery.status).toBe(422);
      expect(asQuery.body.error.issues?.map((issue) => issue.path).sort()).toEqual(['query.sub', 'query.tenant']);
      expect(asBody.status).toBe(422);
      expect(asHeader.status).toBe(200);
      expect(
        asHeader.body.items.every(
          (note) =>
            (note as unknown as { provenance: { createdBy: { principal: string } } }).provenance.createdBy.principal ===
            'alice',
        ),
      ).toBe(true);
    });
  });

  describe('Errors', () => {
    it('answers 422 naming each failing and unknown field', async () => {
      const response = await create({ tags: 'not-a-list', colour: 'blue' });

      expect(response.status).toBe(422);
      const body = response.body as unknown as ErrorBody;
      expect(body.error.code).toBe('validation.failed');
      expect(body.error.issues?.map((issue) => issue.path).sort()).toEqual(['body.colour', 'body.tags', 'body.text']);
    });

    it('answers 400 for a body that is not JSON, and 415 for one that is not sent as JSON', async () => {
      const invalid = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: alice,
        rawBody: '{"text": ',
        headers: { 'content-type': 'application/json' },
      });
      const form = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: alice,
        rawBody: 'text=hello',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

      expect([invalid.status, invalid.body.error.code]).toEqual([400, 'request.invalid_json']);
      expect([form.status, form.body.error.code]).toEqual([415, 'request.unsupported_media_type']);
    });

    it('answers 413 for a body over the limit, and stores nothing', async () => {
      const token = await api.token({ sub: 'big-writer' });
      const response = await create({ text: 'x'.repeat(70_000) }, '/v1/notes', token);

      expect(response.status).toBe(413);
      expect((await api.request<Page>('GET', '/v1/notes', { token })).body.items).toEqual([]);
    });

    it('answers 422 for a bad limit, cursor or agent name', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=forged', 'agent=../bob', 'agent=a%2Fb']) {
        const response = await api.request<ErrorBody>('GET', `/v1/notes?${query}`, { token: alice });
        expect({ query, status: response.status }).toEqual({ query, status: 422 });
      }
    });

    it('answers 404 for an unknown or malformed id, and for an unknown path', async () => {
      for (const path of [
        '/v1/notes/01ARZ3NDEKTSV4RRFFQ69G5FAV',
        '/v1/notes/..%2F..%2Fbob',
        '/v1/notes/nope',
        '/v1/nowhere',
      ]) {
        const response = await api.request<ErrorBody>('GET', path, { token: alice });
        expect({ path, status: response.status, code: response.body.error.code }).toEqual({
          path,
          status: 404,
          code: 'not_found',
        });
      }
    });

    it('answers 428 without If-Match and 412 with a stale one, giving the current ETag', async () => {
      const created = await create({ text: 'v1' });
      const path = `/v1/notes/${created.body.id}`;
      const fresh = await api.request<Note>('PATCH', path, {
        token: alice,
        headers: { 'if-match': created.body.etag },
        body: { text: 'v2' },
      });

      const missing = await api.request<ErrorBody>('PATCH', path, { token: alice, body: { text: 'v3' } });
      const stale = await api.request<ErrorBody>('PATCH', path, {
        token: alice,
        headers: { 'if-match': created.body.etag },
        body: { text: 'v3' },
      });
      const staleDelete = await api.request<ErrorBody>('DELETE', path, {
        token: alice,
        headers: { 'if-match': created.body.etag },
      });
      const missingDelete = await api.request<ErrorBody>('DELETE', path, { token: alice });

      expect([missing.status, missing.body.error.code]).toEqual([428, 'record.precondition_required']);
      expect([stale.status, stale.headers.get('etag')]).toEqual([412, fresh.body.etag]);
      expect([staleDelete.status, staleDelete.headers.get('etag')]).toEqual([412, fresh.body.etag]);
      expect(missingDelete.status).toBe(428);
      expect((await api.request<Note>('GET', path, { token: alice })).body.text).toBe('v2');
    });

    it('replays the first response for a repeated Idempotency-Key and refuses it for another body', async () => {
      const headers = { 'idempotency-key': 'create-42' };
      const first = await api.request<Note>('POST', '/v1/notes', {
        token: alice,
        headers,
        body: { text: 'exactly once' },
      });
      const replay = await api.request<Note>('POST', '/v1/notes', {
        token: alice,
        headers,
        body: { text: 'exactly once' },
      });
      const conflict = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: alice,
        headers,
        body: { text: 'something else' },
      });
      const bad = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: alice,
        headers: { 'idempotency-key': 'has spaces' },
        body: { text: 'x' },
      });

      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect([conflict.status, conflict.body.error.code]).toEqual([409, 'idempotency.key_reused']);
      expect(bad.status).toBe(422);
      const all = await api.request<Page>('GET', '/v1/notes?limit=100', { token: alice });
      expect(all.body.items.filter((note) => note.text === 'exactly once')).toHaveLength(1);
    });

    it('refuses personal identifiers and secrets in a note with 422 and reason codes, echoing nothing, storing nothing', async () => {
      const token = await api.token({ sub: 'careless' });
      const email = 'jane.doe@example.com';
      const card = '4111 1111 1111 1111';

      const created = await create({ text: `mail ${email}, card ${card}` }, '/v1/notes', token);
      const clean = await create({ text: 'prefers concise answers' }, '/v1/notes', token);
      const revised = await api.request<ErrorBody & { error: { reasons?: string[] } }>(
        'PATCH',
        `/v1/notes/${clean.body.id}`,
        {
          token,
          headers: { 'if-match': clean.body.etag },
          body: { text: `key AKIAIOSFODNN7EXAMPL3 now` },
        },
      );

      const body = created.body as unknown as ErrorBody & { error: { reasons?: string[] } };
      expect([created.status, body.error.code]).toEqual([422, 'protection.sensitive_content']);
      expect(body.error.reasons).toEqual(['pii.email', 'pii.payment_card']);
      expect(JSON.stringify(body)).not.toMatch(/jane|4111/);
      expect(revised.status).toBe(422);
      const listed = await api.request<Page>('GET', '/v1/notes', { token });
      expect(listed.body.items.map((note) => note.text)).toEqual(['prefers concise answers']);
    });

    it('answers 400 for a path with malformed percent-encoding', async () => {
      const response = await api.request<ErrorBody>('GET', '/v1/notes/%E0%A4%A', { token: alice });
      expect([response.status, response.body.error.code]).toEqual([400, 'request.malformed_target']);
    });

    it('answers 405 for a known path with another method', async () => {
      expect((await api.request('PUT', '/v1/notes', { token: alice })).status).toBe(405);
    });
  });

  describe('Issuer registry', () => {
    it('stops accepting a client once the issuer no longer lists it', async () => {
      const token = await api.token({ sub: 'carol', client: 'temporary-app' });
      expect((await api.request('GET', '/v1/notes', { token })).status).toBe(200);
      const clientsFile = join(api.dataDir, 'issuer', 'clients.json');
      const clients = JSON.parse(readFileSync(clientsFile, 'utf8')) as string[];
      writeFileSync(clientsFile, JSON.stringify(clients.filter((client) => client !== 'temporary-app')));

      // The registry is looked at at most every 250 ms.
      const refused = await eventually(async () => {
        const status = (await api.request('GET', '/v1/notes', { token })).status;
        return status === 401 ? status : undefined;
      }, 2000);
      expect(refused).toBe(401);
    });
  });
});
