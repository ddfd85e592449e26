import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_MEMORY_HUB_SCOPES } from '../../lambdas/kernel/identity/oauth-scopes.ts';
import { declaredSignal } from '../support/learning-events.ts';
import { eventually, LocalApi, tokenLookup } from '../support/local-api.ts';
import { type RawResponse, rawExchange, rawRequest } from '../support/raw-http.ts';

type Page = { items: Record<string, unknown>[]; nextCursor?: string };
type ErrorBody = { error: { code: string; message: string; requestId: string } };
type Created = { id: string; etag: string; revision: number };

const OPENAPI = JSON.parse(readFileSync('lambdas/generated/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};

/** Every route of the document: method, path template, operation id and the statuses it documents. */
const DOCUMENTED_ROUTES = Object.entries(OPENAPI.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    path,
    operationId: operation.operationId,
    documented: Object.keys(operation.responses).map(Number),
  })),
);

const expectErrorShape = (body: unknown, code: string) => {
  expect(body).toEqual({ error: { code, message: expect.any(String), requestId: expect.any(String) } });
};

const parsedBody = (response: RawResponse): unknown => JSON.parse(response.body);

describe('API: HTTP conformance over real HTTP', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  const token = tokenLookup(tokens);
  /** Ids the listings below page through, filled in by `beforeAll`. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    api = await LocalApi.start();
    // Admins holding every scope, so that each route is reachable.
    const admin = (sub: string) =>
      api.signedToken({
        sub,
        'custom:tenant': 'acme',
        'cognito:groups': ['org:admin', 'project:p7:admin'],
        scope: ALL_MEMORY_HUB_SCOPES.join(' '),
      });
    tokens.alice = await admin('alice');
    tokens.bob = await admin('bob');
    tokens.member = await api.token({ sub: 'mark', groups: ['project:p7:member'] });

    // Two items (or two revisions) in every paged listing, so that a page of one has a cursor.
    for (const as of ['alice', 'bob']) {
      const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        api.request<Created>(method, path, { token: token(as), body, ...(headers && { headers }) });
      const note = await send('POST', '/v1/notes', { text: 'first' });
      ids[`${as}.otherNote`] = (await send('POST', '/v1/notes', { text: 'second' })).body.id;
      await send('PATCH', `/v1/notes/${note.body.id}`, { text: 'first, revised' }, { 'if-match': note.body.etag });
      ids[`${as}.note`] = note.body.id;
      const projectNote = await send('POST', '/v1/projects/p7/notes', { text: `${as}: team` });
      await send('POST', '/v1/projects/p7/notes', { text: `${as}: team again` });
      await send(
        'PATCH',
        `/v1/projects/p7/notes/${projectNote.body.id}`,
        { text: 'team, revised' },
        { 'if-match': projectNote.body.etag },
      );
      ids[`${as}.projectNote`] = projectNote.body.id;
      for (const session of ['s1', 's2']) {
        await send('POST', `/v1/sessions/${session}/events`, declaredSignal('conformance.tone', 'dry'));
        await send('POST', `/v1/sessions/${session}/events`, declaredSignal('conformance.pace', 'slow'));
      }
      const beliefs = await api.request<Page>('GET', '/v1/beliefs?kind=preference', { token: token(as) });
      ids[`${as}.belief`] = String(beliefs.body.items[0]?.id);
    }
    for (const key of ['conformance.alpha', 'conformance.beta']) {
      const guardrail = { type: 'enum', allowed: ['a', 'b'], default: 'a' };
      expect(
        (await api.request('PUT', `/v1/guardrails/${key}`, { token: token('alice'), body: guardrail })).status,
      ).toBe(201);
      const projectKey = `${key}.team`;
      const projectPut = await api.request('PUT', `/v1/projects/p7/guardrails/${projectKey}`, {
        token: token('alice'),
        body: guardrail,
      });
      expect(projectPut.status).toBe(201);
    }
    // The audit trail is written by a consumer, after the request.
    await eventually(async () => {
      const audit = await api.request<Page>('GET', '/v1/audit?limit=100', { token: token('alice') });
      return audit.body.items.length >= 4 ? true : undefined;
    });
  });

  afterAll(async () => {
    await api.stop();
  });

  describe('Cursors', () => {
    /** Every paged route, with a query that gives pages of one. */
    const pagedRoutes = (as: string) => [
      { name: 'listNotes', path: '/v1/notes?limit=1' },
      { name: 'listProjectNotes', path: '/v1/projects/p7/notes?limit=1' },
      { name: 'listNoteHistory', path: `/v1/notes/${ids[`${as}.note`]}/history?limit=1` },
      { name: 'listProjectNoteHistory', path: `/v1/projects/p7/notes/${ids[`${as}.projectNote`]}/history?limit=1` },
      { name: 'listSessionEvents', path: '/v1/sessions/s1/events?limit=1' },
      { name: 'listBeliefs', path: '/v1/beliefs?limit=1' },
      { name: 'listBeliefHistory', path: `/v1/beliefs/${ids[`${as}.belief`]}/history?limit=1` },
      { name: 'listGuardrails', path: '/v1/guardrails?limit=1' },
      { name: 'listProjectGuardrails', path: '/v1/projects/p7/guardrails?limit=1' },
      { name: 'listAudit', path: '/v1/audit?limit=1' },
    ];
    const withCursor = (path: string, cursor: string) => `${path}&cursor=${encodeURIComponent(cursor)}`;
    const firstCursor = async (path: string, as = 'alice'): Promise<string> => {
      const first = await api.request<Page>('GET', path, { token: token(as) });
      expect(first.status, path).toBe(200);
      expect(first.body.nextCursor, path).toEqual(expect.any(String));
      return first.body.nextCursor as string;
    };

    it('continues every paged listing with the cursor it issued', async () => {
      for (const route of pagedRoutes('alice')) {
        // Prepare
        const first = await api.request<Page>('GET', route.path, { token: token('alice') });

        // Act
        const next = await api.request<Page>('GET', withCursor(route.path, first.body.nextCursor as string), {
          token: token('alice'),
        });

        // Assess
        expect(next.status, route.name).toBe(200);
        expect(next.body.items, route.name).toHaveLength(1);
        expect(next.body.items[0], route.name).not.toEqual(first.body.items[0]);
      }
    });

    it('refuses with 422, on every paged route, a cursor another listing issued', async () => {
      const routes = pagedRoutes('alice');
      const cursors = await Promise.all(routes.map((route) => firstCursor(route.path)));
      for (const [index, route] of routes.entries())
        for (const [otherIndex, other] of routes.entries()) {
          if (otherIndex === index) continue;
          const response = await api.request<ErrorBody>('GET', withCursor(route.path, cursors[otherIndex] as string), {
            token: token('alice'),
          });
          expect(response.status, `${other.name}'s cursor on ${route.name}`).toBe(422);
          expectErrorShape(response.body, 'validation.invalid_cursor');
        }
    });

    it('refuses with 422 a cursor issued to another caller for the same listing', async () => {
      for (const route of pagedRoutes('alice').filter((route) => !route.path.includes('history'))) {
        const bobs = await firstCursor(route.path, 'bob');

        const response = await api.request<ErrorBody>('GET', withCursor(route.path, bobs), { token: token('alice') });

        expect(response.status, route.name).toBe(422);
        expectErrorShape(response.body, 'validation.invalid_cursor');
      }
    });

    it('refuses with 422 a cursor sent with other filters, another session or another note', async () => {
      const changed = [
        ['/v1/notes?limit=1', '/v1/notes?limit=1&agent=coder'],
        ['/v1/beliefs?limit=1', '/v1/beliefs?limit=1&kind=preference'],
        ['/v1/beliefs?limit=1&kind=preference', '/v1/beliefs?limit=1&kind=preference&status=mature'],
        ['/v1/sessions/s1/events?limit=1', '/v1/sessions/s2/events?limit=1'],
        [`/v1/notes/${ids['alice.note']}/history?limit=1`, `/v1/notes/${ids['alice.otherNote']}/history?limit=1`],
        ['/v1/audit?limit=1', '/v1/audit?limit=1&since=2000-01-01T00:00:00Z'],
      ];
      for (const [issuedFor, sentWith] of changed) {
        const cursor = await firstCursor(issuedFor as string);

        const response = await api.request<ErrorBody>('GET', withCursor(sentWith as string, cursor), {
          token: token('alice'),
        });

        expect(response.status, `${issuedFor} → ${sentWith}`).toBe(422);
        expectErrorShape(response.body, 'validation.invalid_cursor');
      }
    });

    it('keeps the cursor when only the page size changes', async () => {
      const cursor = await firstCursor('/v1/notes?limit=1');

      const response = await api.request<Page>('GET', withCursor('/v1/notes?limit=5', cursor), {
        token: token('alice'),
      });

      expect(response.status).toBe(200);
      expect(response.body.items).toHaveLength(1);
    });

    it('answers 422, not 500, for an audit cursor from an earlier page sent with a later `since`', async () => {
      // Prepare: a real cursor, positioned at the first entry, and an instant after every entry.
      const cursor = await firstCursor('/v1/audit?limit=1');
      const later = new Date(Date.now() + 60_000).toISOString();

      // Act
      const response = await api.request<ErrorBody>('GET', withCursor(`/v1/audit?limit=1&since=${later}`, cursor), {
        token: token('alice'),
      });

      // Assess
      expect(response.status).toBe(422);
      expectErrorShape(response.body, 'validation.invalid_cursor');
    });

    it('answers 422 for a well-formed cursor of the right listing whose position lies outside its key range', async () => {
      // A caller can rewrite the position inside a cursor it holds; the listing must refuse one it would not issue.
      const since = '2000-01-01T00:00:00Z';
      const issued = await firstCursor(`/v1/audit?limit=1&since=${since}`);
      const forge = (position: string) => {
        const decoded = JSON.parse(Buffer.from(issued, 'base64url').toString('utf8')) as Record<string, unknown>;
        return Buffer.from(JSON.stringify({ ...decoded, p: position }), 'utf8').toString('base64url');
      };

      for (const position of ['A#1999-12-31T23:59:59.999Z#x', 'H#x', 'A#'.padEnd(600, 'x'), '']) {
        const response = await api.request<ErrorBody>(
          'GET',
          withCursor(`/v1/audit?limit=1&since=${since}`, forge(position)),
          { token: token('alice') },
        );

        expect(response.status, position.slice(0, 40)).toBe(422);
        expectErrorShape(response.body, 'validation.invalid_cursor');
      }
    });

    it('answers 422 on every paged route for a cursor it never issued', async () => {
      const forged = [
        'forged',
        Buffer.from(JSON.stringify({ v: 1, p: 'H#0' })).toString('base64url'),
        Buffer.from(JSON.stringify({ v: 1, p: 'A#2000' })).toString('base64url'),
      ];
      for (const route of pagedRoutes('alice'))
        for (const cursor of forged) {
          const response = await api.request<ErrorBody>('GET', withCursor(route.path, cursor), {
            token: token('alice'),
          });
          expect(response.status, `${route.name} ${cursor}`).toBe(422);
          expectErrorShape(response.body, 'validation.invalid_cursor');
        }
    });
  });

  describe('Request targets', () => {
    it('answers 400 in the error shape for a request target that is not a valid path', async () => {
      const targets = ['//[/v1/health', 'http://%zz/v1/health', '/v1/notes/%zz', '/v1/notes/%C3%28', '/v1/he%alth'];
      for (const target of targets) {
        // Act
        const response = await rawRequest(api.server.url, 'GET', target, {
          authorization: `Bearer ${token('alice')}`,
        });

        // Assess
        expect(response.status, target).toBe(400);
        expect(response.headers['content-type'], target).toMatch(/^application\/json/);
        expectErrorShape(parsedBody(response), 'request.malformed_target');
      }
    });

    it('accepts the absolute form of a request target (RFC 9112 §3.2.2)', async () => {
      const response = await rawRequest(api.server.url, 'GET', `${api.server.url}/v1/health`);

      expect(response.status).toBe(200);
      expect(parsedBody(response)).toMatchObject({ status: 'ok' });
    });

    it('answers 400 in the error shape for a request the HTTP parser cannot read', async () => {
      const response = await rawExchange(api.server.url, 'GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');

      expect(response.status).toBe(400);
      expectErrorShape(parsedBody(response), 'request.malformed');
    });

    it('answers an unreadable HEAD request without a body (RFC 9110 §9.3.2)', async () => {
      // Found by the fuzz suite: a body after the head made Node's client fail to parse the answer.
      const response = await rawExchange(api.server.url, 'HEAD \\v1\\health HTTP/1.1\r\nHost: x\r\n\r\n');

      expect(response.status).toBe(400);
      expect(response.body).toBe('');
    });
  });

  describe('Routing', () => {
    // API Gateway HTTP API matches the request path against the route keys as sent, once percent-decoded; it
    // does not resolve dot segments (see local-server.ts for the sources).
    it('does not resolve dot segments: `..` and `%2e%2e` are path segments like any other', async () => {
      for (const target of ['/v1/projects/%2e%2e/notes', '/v1/projects/../notes', '/v1/projects/.%2E/notes']) {
        // Act: resolved, each of these would be GET /v1/notes, which answers 200.
        const response = await rawRequest(api.server.url, 'GET', target, {
          authorization: `Bearer ${token('alice')}`,
        });

        // Assess: the project route, with a project id no caller can be a member of.
        expect(response.status, target).toBe(404);
        expectErrorShape(parsedBody(response), 'not_found');
      }
    });

    it('answers 404 for a path that only dot-segment resolution would turn into a route', async () => {
      for (const target of ['/v1/./health', '/v1/x/../health', '/v1/health/.', '/v1/%2e/health']) {
        const response = await rawRequest(api.server.url, 'GET', target);

        expect(response.status, target).toBe(404);
        expectErrorShape(parsedBody(response), 'not_found');
      }
    });

    it('decodes the path once before routing, so an encoded slash separates segments', async () => {
      const response = await rawRequest(api.server.url, 'GET', '/v1%2Fhealth');

      expect(response.status).toBe(200);
    });

    it('answers 405 with the methods the path accepts in Allow (RFC 9110 §15.5.6)', async () => {
      const response = await rawRequest(api.server.url, 'DELETE', '/v1/notes');

      expect(response.status).toBe(405);
      expect(response.headers.allow?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
      expectErrorShape(parsedBody(response), 'request.method_not_allowed');
    });
  });

  describe('Bodies', () => {
    it('answers 400 for a body that is not valid JSON and 415 for one not sent as JSON', async () => {
      const invalid = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: token('member'),
        rawBody: '{"text": ',
        headers: { 'content-type': 'application/json' },
      });
      const form = await api.request<ErrorBody>('POST', '/v1/notes', {
        token: token('member'),
        rawBody: 'text=hello',
        headers: { 'content-type': 'text/plain' },
      });

      expect(invalid.status).toBe(400);
      expectErrorShape(invalid.body, 'request.invalid_json');
      expect(form.status).toBe(415);
      expectErrorShape(form.body, 'request.unsupported_media_type');
    });

    it('names an unknown field only when its name is a plain identifier', async () => {
      const response = await api.request<{ error: { issues: { path: string; message: string }[] } }>(
        'POST',
        '/v1/notes',
        {
          token: token('member'),
          body: { text: 'hello', colour: 'red', ['x'.repeat(41)]: 1, 'secret value here': 2 },
        },
      );

      expect(response.status).toBe(422);
      expect(response.body.error.issues).toEqual([
        { path: 'body.colour', message: 'unknown field' },
        { path: 'body.{key}', message: 'unknown field' },
        { path: 'body.{key}', message: 'unknown field' },
      ]);
    });

    it('refuses a record id that API Gateway would decode into path structure, as a record that does not exist', async () => {
      for (const target of ['/v1/notes/a%252Fhistory', '/v1/notes/a%253Fx', '/v1/notes/a%25']) {
        const response = await rawRequest(api.server.url, 'GET', target, { authorization: `Bearer ${token('alice')}` });

        expect(response.status, target).toBe(404);
      }
    });

    it("names a map entry in a validation issue without echoing its key (a key is the caller's data)", async () => {
      // Found by the fuzz suite: zod puts a record's keys into the issue path.
      const response = await api.request<{ error: { issues: { path: string; message: string }[] } }>(
        'POST',
        '/v1/sessions/s1/events',
        {
          token: token('member'),
          body: { type: 'outcome', task: 't', result: 'success', attributes: { 'BAD canary-key': 1 } },
        },
      );

      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).not.toContain('canary-key');
      expect(response.body.error.issues).toContainEqual({ path: 'body.attributes.{key}', message: 'invalid key' });
    });
  });

  describe('Entity tags', () => {
    const swapCase = (value: string) =>
      [...value].map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase())).join('');

    /** A fresh note, and the requests that change it. */
    const fixture = async () => {
      const created = await api.request<Created>('POST', '/v1/notes', { token: token('member'), body: { text: 'v1' } });
      const path = `/v1/notes/${created.body.id}`;
      const patch = (ifMatch: string) =>
        api.request<ErrorBody & Created>('PATCH', path, {
          token: token('member'),
          body: { text: 'v2' },
          headers: { 'if-match': ifMatch },
        });
      const remove = (ifMatch: string) =>
        api.request<ErrorBody>('DELETE', path, { token: token('member'), headers: { 'if-match': ifMatch } });
      const revision = async () => (await api.request<Created>('GET', path, { token: token('member') })).body.revision;
      return { etag: created.body.etag, patch, remove, revision };
    };

    it('refuses `If-Match: *` with 428 and a code of its own: nothing is ever overwritten blindly', async () => {
      const note = await fixture();
      for (const ifMatch of ['*', ` * `, `${note.etag}, *`]) {
        // Act
        const patched = await note.patch(ifMatch);
        const removed = await note.remove(ifMatch);

        // Assess
        for (const response of [patched, removed]) {
          expect(response.status, ifMatch).toBe(428);
          expectErrorShape(response.body, 'request.if_match_wildcard');
          expect(response.body.error.message).toMatch(/ETag/);
        }
      }
      expect(await note.revision()).toBe(1);
    });

    it('refuses `If-Match: *` on every operation that reads If-Match, guardrails and beliefs included', async () => {
      const guardrail = '/v1/guardrails/conformance.alpha';
      const belief = `/v1/beliefs/${ids['alice.belief']}`;
      const requests = [
        ['PUT', guardrail, { type: 'enum', allowed: ['a'], default: 'a' }],
        ['DELETE', guardrail, undefined],
        ['PATCH', belief, { value: 'wet' }],
        ['DELETE', belief, undefined],
      ] as const;
      for (const [method, path, body] of requests) {
        const response = await api.request<ErrorBody>(method, path, {
          token: token('alice'),
          ...(body !== undefined && { body }),
          headers: { 'if-match': '*' },
        });

        expect(response.status, `${method} ${path}`).toBe(428);
        expectErrorShape(response.body, 'request.if_match_wildcard');
      }
    });

    it('never matches a weak validator or an ETag in another letter case (strong comparison, RFC 9110 §13.1.1)', async () => {
      const note = await fixture();
      expect(swapCase(note.etag)).not.toBe(note.etag);
      for (const ifMatch of [`W/${note.etag}`, swapCase(note.etag), note.etag.toLowerCase(), note.etag.toUpperCase()]) {
        if (ifMatch === note.etag) continue;
        // Act
        const patched = await note.patch(ifMatch);
        const removed = await note.remove(ifMatch);

        // Assess: stale, with the ETag that would have matched.
        for (const response of [patched, removed]) {
          expect(response.status, ifMatch).toBe(412);
          expectErrorShape(response.body, 'record.precondition_failed');
          expect(response.headers.get('etag')).toBe(note.etag);
        }
      }
      expect(await note.revision()).toBe(1);

      // The exact ETag still matches.
      expect((await note.patch(note.etag)).status).toBe(200);
    });
  });

  describe('Documented statuses', () => {
    /** A concrete path for a route template: parameters that exist for alice where a listing needs them. */
    const concrete = (template: string) =>
      template
        .replace('{projectId}', 'p7')
        .replace('{id}', template.includes('beliefs') ? (ids['alice.belief'] as string) : (ids['alice.note'] as string))
        .replace('{sessionId}', 's1')
        .replace('{key}', 'conformance.beta')
        .replace('{name}', 'no-such-workflow')
        .replace('{runId}', '01ARZ3NDEKTSV4RRFFQ69G5FAV');

    /** Requests that provoke each kind of refusal an operation can give. */
    const provocations = (path: string) => [
      { what: 'no token', path, headers: {} as Record<string, string>, body: undefined as string | undefined },
      { what: 'a member without roles', path, as: 'member', headers: {}, body: undefined },
      { what: 'an unknown query field', path: `${path}?unknown=1`, headers: {}, body: undefined },
      { what: 'a forged cursor', path: `${path}?cursor=forged`, headers: {}, body: undefined },
      { what: 'a body of another type', path, headers: { 'content-type': 'text/plain' }, body: 'text' },
      { what: 'malformed JSON', path, headers: { 'content-type': 'application/json' }, body: '{"' },
      { what: 'an empty JSON object', path, headers: { 'content-type': 'application/json' }, body: '{}' },
      {
        what: 'a body over the limit',
        path,
        headers: { 'content-type': 'application/json' },
        body: `"${'x'.repeat(70_000)}"`,
      },
      { what: 'If-Match: *', path, headers: { 'if-match': '*' }, body: undefined },
      { what: 'a weak If-Match', path, headers: { 'if-match': 'W/"1-AAAAAAAAAAAA"' }, body: undefined },
      { what: 'no If-Match', path, headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' },
      { what: 'an idempotency key of the wrong shape', path, headers: { 'idempotency-key': 'a b' }, body: undefined },
    ];

    it('lists, for every operation, each status the operation answered', async () => {
      const undocumented: string[] = [];
      for (const route of DOCUMENTED_ROUTES) {
        const path = concrete(route.path);
        for (const provocation of provocations(path)) {
          const bearer = provocation.what === 'no token' ? undefined : token(provocation.as ?? 'alice');
          const response = await rawRequest(
            api.server.url,
            route.method,
            provocation.path,
            { ...provocation.headers, ...(bearer && { authorization: `Bearer ${bearer}` }) },
            provocation.body,
          );
          expect(response.status, `${route.operationId} with ${provocation.what}`).toBeLessThan(500);
          if (!route.documented.includes(response.status))
            undocumented.push(`${route.operationId} answered ${response.status} to ${provocation.what}`);
        }
      }
      expect(undocumented).toEqual([]);
    });
  });
});
