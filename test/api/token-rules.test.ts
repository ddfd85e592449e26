import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../lambdas/app/capabilities.ts';
import { operationsOf } from '../../lambdas/composition/module-tables.ts';
import { MEMORY_HUB_SCOPES } from '../../lambdas/kernel/identity/oauth-scopes.ts';
import { MAX_TOKEN_LIFETIME_SECONDS, TOKEN_CLOCK_SKEW_SECONDS } from '../../lambdas/kernel/identity/token-rules.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { createLocalTokenVerifier } from '../../lambdas/local/local-issuer.ts';
import { LocalApi } from '../support/local-api.ts';

type ErrorBody = { error: { code: string; message: string; requestId: string } };

/** Every route of the service, its path template filled with values that pass validation. */
const ROUTES = operationsOf(CAPABILITIES).flatMap((operation) =>
  operation.authenticated
    ? operation.routes.map((route) => ({
        method: route.method,
        requiredScope: operation.requiredScope,
        template: route.path,
        path: route.path
          .replace('{projectId}', 'p7')
          .replace('{id}', '01ARZ3NDEKTSV4RRFFQ69G5FAV')
          .replace('{runId}', '01ARZ3NDEKTSV4RRFFQ69G5FAV')
          .replace('{sessionId}', 's1')
          .replace('{key}', 'response.length')
          .replace('{name}', 'retention-sweep'),
      }))
    : [],
);
/** The routes that change something: all but the reads (GETs, and POSTs that only query, as search). */
const WRITE_ROUTES = ROUTES.filter((route) => route.method !== 'GET' && route.requiredScope !== MEMORY_HUB_SCOPES.read);
/** The operations only an administrator's client may call, reads among them. */
const ADMIN_ROUTES = ROUTES.filter(
  (route) =>
    (route.template.includes('/guardrails') && route.method !== 'GET') ||
    route.template.startsWith('/v1/admin/') ||
    route.template === '/v1/audit',
);

describe('API: the rules a bearer token must meet (local verifier, as API Gateway in AWS)', () => {
  let api: LocalApi;
  const now = () => Math.floor(Date.now() / 1000);
  const identity = { sub: 'alice', 'custom:tenant': 'acme', scope: Object.values(MEMORY_HUB_SCOPES).join(' ') };

  beforeAll(async () => {
    api = await LocalApi.start();
    // Minting registers the issuer's default client, which the tokens signed below name.
    await api.token();
  });
  afterAll(async () => {
    await api.stop();
  });

  const statusWith = async (token: string) => (await api.request<ErrorBody>('GET', '/v1/notes', { token })).status;

  describe('Claims: exp, iat', () => {
    it('accepts a token the issuer mints', async () => {
      // Prepare
      const token = await api.signedToken(identity);

      // Act & Assess
      expect(await statusWith(token)).toBe(200);
    });

    it('refuses a token without an expiry', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, exp: undefined });

      // Act
      const response = await api.request<ErrorBody>('GET', '/v1/notes', { token });

      // Assess
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('auth.unauthenticated');
    });

    it('refuses a token without an issue time', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, iat: undefined });

      // Act & Assess
      expect(await statusWith(token)).toBe(401);
    });

    it(`refuses a token issued more than ${TOKEN_CLOCK_SKEW_SECONDS} s in the future`, async () => {
      // Prepare
      const farAhead = await api.signedToken({ ...identity, iat: now() + 3600, exp: now() + 7200 });
      const justAhead = await api.signedToken({
        ...identity,
        iat: now() + TOKEN_CLOCK_SKEW_SECONDS + 2,
        exp: now() + 600,
      });

      // Act & Assess
      expect(await statusWith(farAhead)).toBe(401);
      expect(await statusWith(justAhead)).toBe(401);
    });

    it(`refuses a token that lives longer than ${MAX_TOKEN_LIFETIME_SECONDS / 3600} hours`, async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, iat: now() - 10, exp: now() + MAX_TOKEN_LIFETIME_SECONDS });

      // Act & Assess
      expect(await statusWith(token)).toBe(401);
    });
  });

  describe('Claim: cognito:groups', () => {
    it('refuses a token whose one group name holds a comma, instead of making its holder an org admin', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, 'cognito:groups': ['project:p7:member,org:admin'] });

      // Act
      const audit = await api.request<ErrorBody>('GET', '/v1/audit', { token });

      // Assess
      expect(audit.status).toBe(401);
      expect(audit.body.error.code).toBe('auth.unauthenticated');
    });

    it('refuses a token whose one group name holds a space', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, 'cognito:groups': ['project:p7:member org:admin'] });

      // Act & Assess
      expect((await api.request('GET', '/v1/audit', { token })).status).toBe(401);
    });

    it('refuses a token whose groups are a string where Cognito puts an array', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, 'cognito:groups': '[org:admin]' });

      // Act & Assess
      expect((await api.request('GET', '/v1/audit', { token })).status).toBe(401);
    });

    it('still reads well-formed groups from the array', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, 'cognito:groups': ['project:p7:member', 'org:admin'] });

      // Act
      const audit = await api.request('GET', '/v1/audit', { token });
      const projectNotes = await api.request('GET', '/v1/projects/p7/notes', { token });

      // Assess
      expect(audit.status).toBe(200);
      expect(projectNotes.status).toBe(200);
    });
  });

  describe('Claim: scope', () => {
    it('lets a read-only client read', async () => {
      // Prepare
      const reader = await api.token({ scopes: [MEMORY_HUB_SCOPES.read], groups: ['project:p7:member'] });

      // Act
      const notes = await api.request('GET', '/v1/notes', { token: reader });
      const projectNotes = await api.request('GET', '/v1/projects/p7/notes', { token: reader });
      const applied = await api.request('GET', '/v1/applied?agent=coder', { token: reader });
      const search = await api.request('POST', '/v1/search', { token: reader, body: { query: 'anything' } });

      // Assess
      expect([notes.status, projectNotes.status, applied.status, search.status]).toEqual([200, 200, 200, 200]);
    });

    it.each(WRITE_ROUTES)('refuses a read-only client on $method $template with 403', async ({ method, path }) => {
      // Prepare
      const reader = await api.token({
        scopes: [MEMORY_HUB_SCOPES.read],
        groups: ['org:admin', 'project:p7:admin'],
      });

      // Act
      const response = await api.request<ErrorBody>(method, path, {
        token: reader,
        body: { text: 'must not be written' },
        headers: { 'if-match': '"01ARZ3NDEKTSV4RRFFQ69G5FAV.1"', 'idempotency-key': 'k1' },
      });

      // Assess
      expect(response.status).toBe(403);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message', 'requestId']);
      expect(response.body.error.code).toBe('auth.insufficient_scope');
      expect(response.body.error.message).not.toContain('must not be written');
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_scope", scope="memory-hub\//,
      );
    });

    it('answers every write route with the same refusal, whatever the path and body', async () => {
      // Prepare
      const reader = await api.token({ scopes: [MEMORY_HUB_SCOPES.read], groups: ['org:admin'] });

      // Act
      const answers = new Set<string>();
      for (const { method, path } of WRITE_ROUTES) {
        const response = await api.request<ErrorBody>(method, path, { token: reader, body: { any: 'thing' } });
        answers.add(JSON.stringify({ status: response.status, code: response.body.error.code }));
      }

      // Assess
      expect([...answers]).toEqual([JSON.stringify({ status: 403, code: 'auth.insufficient_scope' })]);
    });

    it.each(ADMIN_ROUTES)('keeps $method $template from a client without the admin scope', async ({ method, path }) => {
      // Prepare
      const agent = await api.token({
        scopes: [MEMORY_HUB_SCOPES.read, MEMORY_HUB_SCOPES.write],
        groups: ['org:admin', 'project:p7:admin'],
      });

      // Act
      const response = await api.request<ErrorBody>(method, path, {
        token: agent,
        ...(method !== 'GET' && { body: {} }),
      });

      // Assess
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('auth.insufficient_scope');
    });

    it('refuses a token with no scope claim at all with 403, not as an unknown caller', async () => {
      // Prepare
      const token = await api.signedToken({ ...identity, scope: undefined });

      // Act
      const response = await api.request<ErrorBody>('GET', '/v1/notes', { token });

      // Assess
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('auth.insufficient_scope');
    });
  });
});

describe('Function: createLocalTokenVerifier', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await LocalApi.start();
  });
  afterAll(async () => {
    await api.stop();
  });

  it('stops accepting a token it verified and cached once the token expires', async () => {
    // Prepare
    const clock = new ManualClock(new Date());
    const verify = await createLocalTokenVerifier(api.dataDir, { clock });
    const token = await api.token({ ttlSeconds: 60 });
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { exp: number };

    // Act
    const first = await verify(token);
    const again = await verify(token);
    clock.advance(exp * 1000 - clock.now().getTime());
    const atExpiry = verify(token);

    // Assess
    expect(first.sub).toBe('alice');
    expect(again.sub).toBe('alice');
    await expect(atExpiry).rejects.toThrow(/expired/);
  });

  it('refuses a token from the future by its own clock, not the wall clock', async () => {
    // Prepare
    const clock = new ManualClock(new Date(Date.now() - 3600_000));
    const verify = await createLocalTokenVerifier(api.dataDir, { clock });
    const token = await api.token();

    // Act & Assess
    await expect(verify(token)).rejects.toThrow(/future/);
  });
});
