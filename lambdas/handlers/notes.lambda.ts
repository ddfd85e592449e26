/**
 * AWS Lambda entry points for the notes operations. The backend is built once per execution environment,
 * at init; each export is one function's handler (see `x-memory-hub.lambda` in the OpenAPI document).
 */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import * as handlers from './notes.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const createNote = handlers.createNoteHandler(backend);
export const getNote = handlers.getNoteHandler(backend);
export const listNotes = handlers.listNotesHandler(backend);
export const updateNote = handlers.updateNoteHandler(backend);
export const deleteNote = handlers.deleteNoteHandler(backend);
export const listNoteHistory = handlers.listNoteHistoryHandler(backend);
