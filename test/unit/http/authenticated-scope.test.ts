import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../../lambdas/http/api-event.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const ALL_SCOPES = 'memory-hub/memory.read memory-hub/memory.write memory-hub/memory.admin';

/**
 * The event API Gateway's HTTP API hands a function behind its JWT authorizer: every claim a string, array
 * claims in the "[a b]" form, numbers as decimal text. `overrides` replaces or (with undefined) drops claims.
 */
const authorizerEvent = (
  routeKey: string,
  overrides: Record<string, string | undefined> = {},
  parts: Partial<ApiEvent> = {},
): ApiEvent => {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, string> = {};
  const all = {
    sub: 'alice',
    'custom:tenant': 'acme',
    client_id: 'agent-app',
    token_use: 'access',
    scope: ALL_SCOPES,
    iat: String(now - 60),
    exp: String(now + 3540),
    ...overrides,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) claims[name] = value;
  return {
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1] ?? '/',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      routeKey,
      authorizer: { jwt: { claims, scopes: claims.scope?.split(' ') ?? null } },
    },
    ...parts,
  } as unknown as ApiEvent;
};

const projectNotes = (overrides: Record<string, string | undefined>) =>
  authorizerEvent('GET /v1/projects/{projectId}/notes', overrides, { pathParameters: { projectId: 'p7' } });

describe('Middleware: authenticatedScope (the Lambda side of the JWT authorizer)', () => {
  describe('Claim: cognito:groups in the authorizer’s "[a b]" string form', () => {
    it('reads a membership and an org admin from the string form', async () => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const notes = await backend.handlers.listNotes?.(
        projectNotes({ 'cognito:groups': '[project:p7:member org:admin]' }),
        context,
      );
      const audit = await backend.handlers.listAudit?.(
        authorizerEvent('GET /v1/audit', { 'cognito:groups': '[project:p7:member org:admin]' }),
        context,
      );

      // Assess
      expect(notes?.statusCode).toBe(200);
      expect(audit?.statusCode).toBe(200);
    });

    it('does not read "[project:p7:member,org:admin]" as two groups: the token is refused', async () => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const audit = await backend.handlers.listAudit?.(
        authorizerEvent('GET /v1/audit', { 'cognito:groups': '[project:p7:member,org:admin]' }),
        context,
      );

      // Assess
      expect(audit?.statusCode).toBe(401);
      expect(JSON.parse(audit?.body as string).error.code).toBe('auth.unauthenticated');
    });

    it('refuses a token where one fragment of the string is outside the grammar', async () => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const audit = await backend.handlers.listAudit?.(
        authorizerEvent('GET /v1/audit', { 'cognito:groups': '[Readers org:admin]' }),
        context,
      );

      // Assess
      expect(audit?.statusCode).toBe(401);
    });
  });

  describe('Claims: exp, iat (re-checked here; API Gateway bounds neither the lifetime nor the presence of exp)', () => {
    it.each([
      ['no exp', { exp: undefined }],
      ['no iat', { iat: undefined }],
      ['an exp in the past', { exp: String(Math.floor(Date.now() / 1000) - 1) }],
      ['an iat an hour ahead', { iat: String(Math.floor(Date.now() / 1000) + 3600) }],
      [
        'a lifetime of a year',
        { iat: String(Math.floor(Date.now() / 1000) - 60), exp: String(Math.floor(Date.now() / 1000) + 365 * 86_400) },
      ],
      ['an exp that is not a number', { exp: 'tomorrow' }],
    ])('answers 401 to a token with %s', async (_, overrides) => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const response = await backend.handlers.listNotes?.(authorizerEvent('GET /v1/notes', overrides), context);

      // Assess
      expect(response?.statusCode).toBe(401);
      expect(response?.headers?.['WWW-Authenticate']).toBe('Bearer');
    });
  });

  describe('Claim: scope', () => {
    it('answers 403 in the error shape to a read-only token on a write, before reading the body', async () => {
      // Prepare
      const { backend, records } = inMemoryBackend();
      const event = authorizerEvent(
        'POST /v1/notes',
        { scope: 'memory-hub/memory.read' },
        { body: '{"text": "never written"}', headers: { 'content-type': 'application/json' } },
      );

      // Act
      const response = await backend.handlers.createNote?.(event, context);

      // Assess
      expect(response?.statusCode).toBe(403);
      expect(JSON.parse(response?.body as string)).toEqual({
        error: {
          code: 'auth.insufficient_scope',
          message: expect.stringContaining('memory-hub/memory.write'),
          requestId: 'req-1',
        },
      });
      expect(response?.headers?.['WWW-Authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="memory-hub/memory.write"',
      );
      expect(await records.pendingEvents(10)).toEqual([]);
    });

    it('answers 403 to a token whose scope claim is absent', async () => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const response = await backend.handlers.listNotes?.(
        authorizerEvent('GET /v1/notes', { scope: undefined }),
        context,
      );

      // Assess
      expect(response?.statusCode).toBe(403);
    });

    it('lets a read-only token read', async () => {
      // Prepare
      const { backend } = inMemoryBackend();

      // Act
      const response = await backend.handlers.listNotes?.(
        authorizerEvent('GET /v1/notes', { scope: 'memory-hub/memory.read' }),
        context,
      );

      // Assess
      expect(response?.statusCode).toBe(200);
    });
  });
});
