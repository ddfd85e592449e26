import type { OperationInput } from '../../../http/api-event.ts';
import { etagOf, expectedRevisionsOf } from '../../../http/entity-tags.ts';
import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { issuedCursor } from '../../../http/listing-cursors.ts';
import type { Operation } from '../../../http/operation.ts';
import { pageRequestOf } from '../../../http/page-size.ts';
import { created, noContent, ok } from '../../../http/responses.ts';
import type { Narrowing } from '../../../kernel/identity/scope.ts';
import type { NotesService } from '../notes-service.ts';
import * as notes from './notes.operations.ts';

/** `?agent=` narrows inside the caller's own space; `/projects/{projectId}` selects a team's space. */
const narrowingOf = (input: OperationInput<Operation>): Narrowing => ({
  agent: (input.query as { agent?: string }).agent,
  project: input.params.projectId,
});

/** The notes operations' handlers, by export name. */
export const notesHandlers = (service: NotesService, http: HttpContext) => ({
  createNote: httpOperation(notes.createNote, http).handler(async ({ scope, input }) => {
    const { record, replayed } = await service.create(scope, narrowingOf(input), input.body, input.idempotency);
    return created(notes.toNoteResponse(record), {
      etag: etagOf(record.id, record.revision),
      location: notes.noteLocation(record),
      replayed,
    });
  }),
  getNote: httpOperation(notes.getNote, http).handler(async ({ scope, input }) => {
    const note = await service.get(scope, narrowingOf(input), input.params.id);
    return ok(notes.toNoteResponse(note), { etag: etagOf(note.id, note.revision) });
  }),
  listNotes: httpOperation(notes.listNotes, http).handler(async ({ scope, input }) => {
    const page = await service.list(scope, narrowingOf(input), pageRequestOf(http, input.query));
    return ok({ items: page.items.map(notes.toNoteResponse), nextCursor: issuedCursor(input, page.nextCursor) });
  }),
  updateNote: httpOperation(notes.updateNote, http).handler(async ({ scope, input }) => {
    const { id } = input.params;
    const note = await service.update(
      scope,
      narrowingOf(input),
      id,
      expectedRevisionsOf(input.ifMatch, id),
      input.body,
    );
    return ok(notes.toNoteResponse(note), { etag: etagOf(note.id, note.revision) });
  }),
  deleteNote: httpOperation(notes.deleteNote, http).handler(async ({ scope, input }) => {
    const { id } = input.params;
    await service.remove(scope, narrowingOf(input), id, expectedRevisionsOf(input.ifMatch, id));
    return noContent();
  }),
  listNoteHistory: httpOperation(notes.noteHistory, http).handler(async ({ scope, input }) => {
    const page = await service.history(scope, narrowingOf(input), input.params.id, pageRequestOf(http, input.query));
    return ok({ items: page.items.map(notes.toNoteResponse), nextCursor: issuedCursor(input, page.nextCursor) });
  }),
});
