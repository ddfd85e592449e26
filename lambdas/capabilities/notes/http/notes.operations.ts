import * as z from 'zod';
import { Cursor, Owner, PageSize, Provenance, RecordId, SafeName } from '../../../http/api-schemas.ts';
import { scopedFailures } from '../../../http/common-responses.ts';
import { etagOf } from '../../../http/entity-tags.ts';
import { defineOperation, type HttpMethod, NoBody, NoParams, type RouteVariant } from '../../../http/operation.ts';
import { CreateNoteInput, UpdateNoteInput } from '../note.schema.ts';
import type { NoteView } from '../notes-service.ts';

const ENTRY = 'lambdas/capabilities/notes/notes.lambda.ts';

export const Note = z
  .object({
    id: z.string(),
    kind: z.literal('note'),
    owner: Owner,
    revision: z.number().int(),
    etag: z.string(),
    text: z.string(),
    tags: z.array(z.string()),
    provenance: Provenance,
    createdAt: z.string(),
    updatedAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'Note' });

export const NotePage = z.object({ items: z.array(Note), nextCursor: z.string().optional() }).meta({ id: 'NotePage' });

const AgentQuery = z.object({ agent: SafeName.optional() }).strict();
const ListQuery = AgentQuery.extend({ limit: PageSize.optional(), cursor: Cursor.optional() }).strict();
const NoteParams = z.object({ id: RecordId }).strict();

/** Every notes operation answers on the caller's own notes and on a project team's shared notes. */
const bothSpaces = (operationId: string, method: HttpMethod, suffix: string): RouteVariant[] => [
  { operationId, method, path: `/v1/notes${suffix}`, project: false },
  {
    operationId: operationId.replace(/Note/, 'ProjectNote'),
    method,
    path: `/v1/projects/{projectId}/notes${suffix}`,
    project: true,
  },
];

const failures = scopedFailures("No such note in the caller's scope");

export const createNote = defineOperation({
  summary: 'Create a note',
  tag: 'notes',
  routes: bothSpaces('createNote', 'POST', ''),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: { entry: ENTRY, handler: 'createNote', access: 'write' },
  params: NoParams,
  query: AgentQuery,
  body: CreateNoteInput,
  idempotent: true,
  responses: {
    201: { description: 'Created', schema: Note, headers: ['ETag', 'Location', 'Idempotent-Replayed'] },
    ...failures,
  },
});

export const getNote = defineOperation({
  summary: 'Read a note (its current revision)',
  tag: 'notes',
  routes: bothSpaces('getNote', 'GET', '/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'getNote', access: 'read' },
  params: NoteParams,
  query: AgentQuery,
  body: NoBody,
  responses: { 200: { description: 'The note', schema: Note, headers: ['ETag'] }, ...failures },
});

export const listNotes = defineOperation({
  summary: 'List notes, oldest first',
  tag: 'notes',
  routes: bothSpaces('listNotes', 'GET', ''),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'listNotes', access: 'read' },
  params: NoParams,
  query: ListQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of notes', schema: NotePage }, ...failures },
});

export const updateNote = defineOperation({
  summary: 'Revise a note',
  tag: 'notes',
  routes: bothSpaces('updateNote', 'PATCH', '/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: { entry: ENTRY, handler: 'updateNote', access: 'write' },
  params: NoteParams,
  query: AgentQuery,
  body: UpdateNoteInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The new revision', schema: Note, headers: ['ETag'] },
    ...failures,
  },
});

export const deleteNote = defineOperation({
  summary: 'Delete a note (appends a tombstone revision)',
  tag: 'notes',
  routes: bothSpaces('deleteNote', 'DELETE', '/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: { entry: ENTRY, handler: 'deleteNote', access: 'write' },
  params: NoteParams,
  query: AgentQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: {
    204: { description: 'Deleted' },
    ...failures,
  },
});

export const noteHistory = defineOperation({
  summary: 'List the revisions of a note, oldest first',
  tag: 'notes',
  routes: bothSpaces('listNoteHistory', 'GET', '/{id}/history'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'listNoteHistory', access: 'read' },
  params: NoteParams,
  query: ListQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of revisions', schema: NotePage }, ...failures },
});

/** In the order the OpenAPI document lists them. */
export const NOTES_OPERATIONS = [createNote, listNotes, getNote, updateNote, deleteNote, noteHistory] as const;

/** The API's view of a note: the record envelope with the note's content flattened into it. */
export const toNoteResponse = (note: NoteView): z.input<typeof Note> => ({
  id: note.id,
  kind: 'note',
  owner: note.owner,
  revision: note.revision,
  etag: etagOf(note.id, note.revision),
  text: note.content?.text ?? '',
  tags: note.content?.tags ?? [],
  provenance: note.provenance,
  createdAt: note.createdAt,
  updatedAt: note.updatedAt,
  expiresAt: note.expiresAt,
});

export const noteLocation = (note: NoteView): string => {
  if (note.owner.type === 'project') return `/v1/projects/${note.owner.projectId}/notes/${note.id}`;
  const agent = note.owner.type === 'principal' ? note.owner.agent : undefined;
  return `/v1/notes/${note.id}${agent ? `?agent=${agent}` : ''}`;
};
