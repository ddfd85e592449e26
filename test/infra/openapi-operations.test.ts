import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupOperationsByFunction, loadOpenApiDocument, readApiOperations } from '../../lib/openapi-operations.ts';
import { FIXTURE_DOCUMENT_PATH } from './support/fixture-app.ts';

const operation = (lambda: Record<string, unknown>, authenticated = true) => ({
  responses: { '200': { description: 'ok' } },
  'x-memory-hub': { authenticated, ...(authenticated && { requiredScope: 'memory-hub/memory.read' }), lambda },
});
const documentWith = (paths: Record<string, unknown>) => ({ openapi: '3.1.0', info: {}, paths });
const notes = { entry: 'lambdas/capabilities/notes/notes.lambda.ts', handler: 'getNote', access: 'read' };

describe('Function: readApiOperations', () => {
  it('reads method, path, authentication and lambda of every operation', () => {
    // Prepare
    const document = documentWith({
      '/v1/notes/{id}': {
        parameters: [],
        get: operation(notes),
        delete: operation({ ...notes, handler: 'deleteNote', access: 'write' }),
      },
      '/v1/health': { get: operation({ ...notes, handler: 'getHealth', access: 'none' }, false) },
    });

    // Act
    const operations = readApiOperations(document);

    // Assess
    expect(operations).toEqual([
      {
        method: 'GET',
        path: '/v1/notes/{id}',
        operationId: undefined,
        authenticated: true,
        requiredScope: 'memory-hub/memory.read',
        lambda: notes,
      },
      {
        method: 'DELETE',
        path: '/v1/notes/{id}',
        operationId: undefined,
        authenticated: true,
        requiredScope: 'memory-hub/memory.read',
        lambda: { ...notes, handler: 'deleteNote', access: 'write' },
      },
      {
        method: 'GET',
        path: '/v1/health',
        operationId: undefined,
        authenticated: false,
        lambda: { ...notes, handler: 'getHealth', access: 'none' },
      },
    ]);
  });

  it.each([
    ['an authenticated operation without a required scope', { authenticated: true }, /names no requiredScope/],
    ['a public operation with one', { authenticated: false, requiredScope: 'memory-hub/memory.read' }, /public/],
    ['a scope outside resource-server/name', { authenticated: true, requiredScope: 'read' }, /resource-server/],
  ])('refuses %s', (_, access, message) => {
    // Prepare
    const document = documentWith({ '/v1/a': { get: { 'x-memory-hub': { ...access, lambda: notes } } } });

    // Act & Assess
    expect(() => readApiOperations(document)).toThrow(message);
  });

  it('reads the fixture document', () => {
    // Prepare
    const document = JSON.parse(readFileSync(FIXTURE_DOCUMENT_PATH, 'utf8'));

    // Act
    const operations = readApiOperations(document);

    // Assess
    expect(operations.map((item) => `${item.method} ${item.path}`)).toEqual([
      'GET /v1/health',
      'GET /v1/things',
      'POST /v1/things',
      'GET /v1/things/{id}',
      'DELETE /v1/things/{id}',
      'GET /v1/projects/{projectId}/things/{id}',
      'POST /v1/admin/workflows/{name}',
    ]);
    expect(operations.filter((item) => item.lambda.startsWorkflows).map((item) => item.path)).toEqual([
      '/v1/admin/workflows/{name}',
    ]);
  });

  it.each([
    [
      'an operation without the extension',
      { '/v1/a': { get: { responses: {} } } },
      /GET \/v1\/a: invalid x-memory-hub/,
    ],
    ['an unknown access', { '/v1/a': { get: operation({ ...notes, access: 'admin' }) } }, /GET \/v1\/a: invalid/],
    ['an entry leaving the project', { '/v1/a': { get: operation({ ...notes, entry: '../x.ts' }) } }, /entry/],
    [
      'an entry that is no TypeScript file',
      { '/v1/a': { get: operation({ ...notes, entry: 'lambdas/x.js' }) } },
      /entry/,
    ],
    [
      'a startsWorkflows that is no boolean',
      { '/v1/a': { post: operation({ ...notes, startsWorkflows: 'yes' }) } },
      /startsWorkflows/,
    ],
    ['a handler that is no identifier', { '/v1/a': { get: operation({ ...notes, handler: 'get-note' }) } }, /handler/],
    ['a path an HTTP API cannot route', { 'v1/a': { get: operation(notes) } }, /v1\/a: not a path/],
    ['no operation at all', {}, /no operations/],
  ])('refuses %s', (_, paths, message) => {
    // Act & Assess
    expect(() => readApiOperations(documentWith(paths))).toThrow(message);
  });

  it('refuses something that is not an OpenAPI 3 document', () => {
    // Act & Assess
    expect(() => readApiOperations({ swagger: '2.0', paths: {} })).toThrow(/Not an OpenAPI 3 document/);
  });
});

describe('Function: groupOperationsByFunction', () => {
  it('makes one function per (entry, handler) pair and attaches every operation naming it', () => {
    // Prepare
    const operations = readApiOperations(
      documentWith({
        '/v1/notes/{id}': { get: operation(notes) },
        '/v1/projects/{projectId}/notes/{id}': { get: operation(notes) },
        '/v1/notes': { get: operation({ ...notes, handler: 'listNotes' }) },
      }),
    );

    // Act
    const functions = groupOperationsByFunction(operations);

    // Assess
    expect(
      functions.map(({ key, access, operations: served }) => ({ key, access, paths: served.map((o) => o.path) })),
    ).toEqual([
      {
        key: 'lambdas/capabilities/notes/notes.lambda.ts#getNote',
        access: 'read',
        paths: ['/v1/notes/{id}', '/v1/projects/{projectId}/notes/{id}'],
      },
      { key: 'lambdas/capabilities/notes/notes.lambda.ts#listNotes', access: 'read', paths: ['/v1/notes'] },
    ]);
    expect(functions.map(({ startsWorkflows }) => startsWorkflows)).toEqual([false, false]);
  });

  it('lets a function start workflows when any of its operations does', () => {
    // Prepare
    const admin = { entry: 'lambdas/capabilities/housekeeping/admin.lambda.ts', handler: 'workflows', access: 'write' };
    const operations = readApiOperations(
      documentWith({
        '/v1/admin/workflows/{name}': { post: operation({ ...admin, startsWorkflows: true }) },
        '/v1/admin/workflows/runs/{runId}': { get: operation(admin) },
      }),
    );

    // Act
    const [spec] = groupOperationsByFunction(operations);

    // Assess
    expect(spec?.startsWorkflows).toBe(true);
    expect(spec?.operations).toHaveLength(2);
  });

  it('refuses one handler named with two different accesses', () => {
    // Prepare
    const operations = readApiOperations(
      documentWith({
        '/v1/notes/{id}': { get: operation(notes), put: operation({ ...notes, access: 'write' }) },
      }),
    );

    // Act & Assess
    expect(() => groupOperationsByFunction(operations)).toThrow(/access "read" and with access "write"/);
  });
});

describe('Function: loadOpenApiDocument', () => {
  it('reads a document from disk', () => {
    // Act
    const document = loadOpenApiDocument(FIXTURE_DOCUMENT_PATH);

    // Assess
    expect(Object.keys(document.paths)).toContain('/v1/things/{id}');
  });
});
