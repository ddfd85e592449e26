import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { notesHandlers } from '../../../lambdas/capabilities/notes/http/notes.handlers.ts';
import { ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { apiEvent } from '../../support/api-events.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe('Handler: error mapping', () => {
  it('answers a generic 500 that reveals nothing of an unexpected error', async () => {
    // Prepare
    const { backend } = inMemoryBackend();
    const broken = {
      ...backend,
      notes: {
        ...backend.notes,
        get: () => Promise.reject(new Error('table memory-hub-prod: secret detail at /var/task')),
      },
    };
    const handler = notesHandlers(broken.notes as unknown as typeof backend.notes, backend.http).getNote;

    // Act
    const response = await handler(
      apiEvent('GET /v1/notes/{id}', { pathParameters: { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } }),
      context,
    );

    // Assess
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string)).toEqual({
      error: { code: 'internal', message: 'Internal error', requestId: 'req-1' },
    });
  });

  it('answers 503 with Retry-After when storage cannot take a write, and commits nothing', async () => {
    const { backend, records } = inMemoryBackend();
    const unavailable = new ServiceUnavailableError('Storage is unavailable; retry shortly', 2);
    records.append = () => Promise.reject(unavailable);
    const handler = notesHandlers(backend.notes, backend.http).createNote;

    const response = await handler(
      apiEvent('POST /v1/notes', { body: JSON.stringify({ text: 'must not be lost silently' }) }),
      context,
    );

    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('2');
    expect(JSON.parse(response.body as string).error.code).toBe('service.unavailable');
    expect(await records.pendingEvents(10)).toEqual([]);
  });

  it('answers 401 when the authorizer passed no claims', async () => {
    const { backend } = inMemoryBackend();
    const event = apiEvent('GET /v1/notes/{id}', { pathParameters: { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } });
    delete (event.requestContext as { authorizer?: unknown }).authorizer;

    const response = await notesHandlers(backend.notes, backend.http).getNote(event, context);

    expect(response.statusCode).toBe(401);
  });

  it('does not let a handler be called on a route it does not serve', async () => {
    const { backend } = inMemoryBackend();

    const response = await notesHandlers(backend.notes, backend.http).getNote(
      apiEvent('GET /v1/somewhere-else'),
      context,
    );

    expect(response.statusCode).toBe(404);
  });

  it('answers 428 to an update without If-Match and 412 with the current ETag to a stale one', async () => {
    const { backend } = inMemoryBackend();
    const { createNote, updateNote } = notesHandlers(backend.notes, backend.http);
    const created = await createNote(apiEvent('POST /v1/notes', { body: JSON.stringify({ text: 'v1' }) }), context);
    const { id, etag } = JSON.parse(created.body as string) as { id: string; etag: string };
    const patch = (headers: Record<string, string>) =>
      updateNote(
        apiEvent('PATCH /v1/notes/{id}', {
          pathParameters: { id },
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ text: 'v2' }),
        }),
        context,
      );

    const missing = await patch({});
    const fresh = await patch({ 'if-match': etag });
    const stale = await patch({ 'if-match': etag });

    expect([missing.statusCode, JSON.parse(missing.body as string).error.code]).toEqual([
      428,
      'record.precondition_required',
    ]);
    expect(fresh.statusCode).toBe(200);
    expect([stale.statusCode, stale.headers?.ETag]).toEqual([412, fresh.headers?.ETag]);
    expect(JSON.parse(stale.body as string).error.message).toContain('ETag');
  });
});
