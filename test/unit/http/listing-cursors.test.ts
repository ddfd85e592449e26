import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { notesHandlers } from '../../../lambdas/capabilities/notes/http/notes.handlers.ts';
import { apiEvent } from '../../support/api-events.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe('Middleware: validatedRequest (listing cursors)', () => {
  const listNotes = (query: Record<string, string>, sub = 'alice') =>
    apiEvent('GET /v1/notes', { queryStringParameters: query }, { sub, tenant: 'acme' });
  const bodyOf = (response: { body?: string }) => JSON.parse(response.body as string);

  it('refuses a foreign cursor before the service is asked for anything', async () => {
    // Prepare: two notes, a cursor issued to alice, and a service that counts the listings it is asked for.
    const { backend } = inMemoryBackend();
    const handlers = notesHandlers(backend.notes, backend.http);
    for (const text of ['one', 'two'])
      await handlers.createNote(apiEvent('POST /v1/notes', { body: JSON.stringify({ text }) }), context);
    const issued = bodyOf(await handlers.listNotes(listNotes({ limit: '1' }), context)).nextCursor as string;
    let listings = 0;
    const counting = {
      ...backend.notes,
      list: (...args: Parameters<typeof backend.notes.list>) => {
        listings += 1;
        return backend.notes.list(...args);
      },
    } as typeof backend.notes;
    const countingHandlers = notesHandlers(counting, backend.http);

    // Act: the same cursor with another filter, and from another caller.
    const filtered = await countingHandlers.listNotes(
      listNotes({ limit: '1', agent: 'coder', cursor: issued }),
      context,
    );
    const borrowed = await countingHandlers.listNotes(listNotes({ limit: '1', cursor: issued }, 'bob'), context);
    const own = await countingHandlers.listNotes(listNotes({ limit: '1', cursor: issued }), context);

    // Assess
    for (const refused of [filtered, borrowed]) {
      expect(refused.statusCode).toBe(422);
      expect(bodyOf(refused).error.code).toBe('validation.invalid_cursor');
    }
    expect(own.statusCode).toBe(200);
    expect(listings).toBe(1);
  });
});
