import type { Context } from 'aws-lambda';
import type { Backend } from '../core/backend.ts';
import type { ApiEvent, ApiResult } from '../http/api-event.ts';
import * as notes from './notes.handlers.ts';
import * as system from './system.handlers.ts';

export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/**
 * Every Lambda handler by its export name (`x-memory-hub.lambda.handler`), built on one backend: what the
 * local server dispatches to. The `*.lambda.ts` entry points export the same names for AWS.
 */
export const createHandlers = (backend: Backend): Readonly<Record<string, ApiHandler>> => {
  const handlers = {
    getHealth: system.getHealthHandler(backend),
    getOpenApiDocument: system.getOpenApiDocumentHandler(backend),
    createNote: notes.createNoteHandler(backend),
    getNote: notes.getNoteHandler(backend),
    listNotes: notes.listNotesHandler(backend),
    updateNote: notes.updateNoteHandler(backend),
    deleteNote: notes.deleteNoteHandler(backend),
    listNoteHistory: notes.listNoteHistoryHandler(backend),
  };
  // Each middy chain is typed with its operation's validated event; the raw API Gateway event is what it receives.
  return handlers as unknown as Record<string, ApiHandler>;
};
