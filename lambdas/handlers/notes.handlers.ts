import type { Backend } from '../core/backend.ts';
import type { Narrowing } from '../core/identity/scope.ts';
import type { OperationInput } from '../http/api-event.ts';
import { httpOperation } from '../http/http-operation.ts';
import * as notes from '../http/notes.api.ts';
import type { Operation } from '../http/operation.ts';
import { created, noContent, ok } from '../http/responses.ts';

/** `?agent=` narrows inside the caller's own space; `/projects/{projectId}` selects a team's space. */
const narrowingOf = (input: OperationInput<Operation>): Narrowing => ({
  agent: (input.query as { agent?: string }).agent,
  project: input.params.projectId,
});

const pageOf = (input: OperationInput<typeof notes.listNotes>, backend: Backend) => ({
  limit: input.query.limit ?? backend.config.current().listing.defaultPageSize,
  cursor: input.query.cursor,
});

export const createNoteHandler = (backend: Backend) =>
  httpOperation(notes.createNote, backend).handler(async ({ scope, input }) => {
    const { record, replayed } = await backend.notes.create(scope, narrowingOf(input), input.body, input.idempotency);
    return created(notes.toNoteResponse(record), { etag: record.etag, location: notes.noteLocation(record), replayed });
  });

export const getNoteHandler = (backend: Backend) =>
  httpOperation(notes.getNote, backend).handler(async ({ scope, input }) => {
    const note = await backend.notes.get(scope, narrowingOf(input), input.params.id);
    return ok(notes.toNoteResponse(note), { etag: note.etag });
  });

export const listNotesHandler = (backend: Backend) =>
  httpOperation(notes.listNotes, backend).handler(async ({ scope, input }) => {
    const page = await backend.notes.list(scope, narrowingOf(input), pageOf(input, backend));
    return ok({ items: page.items.map(notes.toNoteResponse), nextCursor: page.nextCursor });
  });

export const updateNoteHandler = (backend: Backend) =>
  httpOperation(notes.updateNote, backend).handler(async ({ scope, input }) => {
    const note = await backend.notes.update(scope, narrowingOf(input), input.params.id, input.ifMatch, input.body);
    return ok(notes.toNoteResponse(note), { etag: note.etag });
  });

export const deleteNoteHandler = (backend: Backend) =>
  httpOperation(notes.deleteNote, backend).handler(async ({ scope, input }) => {
    await backend.notes.remove(scope, narrowingOf(input), input.params.id, input.ifMatch);
    return noContent();
  });

export const listNoteHistoryHandler = (backend: Backend) =>
  httpOperation(notes.noteHistory, backend).handler(async ({ scope, input }) => {
    const page = await backend.notes.history(scope, narrowingOf(input), input.params.id, pageOf(input, backend));
    return ok({ items: page.items.map(notes.toNoteResponse), nextCursor: page.nextCursor });
  });
