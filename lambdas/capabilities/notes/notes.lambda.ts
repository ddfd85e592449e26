/**
 * AWS Lambda entry points for the notes operations, built from the notes module alone, once per execution
 * environment at init; each export is one function's handler (see `x-memory-hub.lambda` in the OpenAPI document).
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { notesModule } from './notes.module.ts';

const notes = await awsApplication(process.env, [notesModule]);

export const createNote = notes.handler('createNote');
export const getNote = notes.handler('getNote');
export const listNotes = notes.handler('listNotes');
export const updateNote = notes.handler('updateNote');
export const deleteNote = notes.handler('deleteNote');
export const listNoteHistory = notes.handler('listNoteHistory');
