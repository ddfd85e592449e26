import { z } from 'zod';
import { CreateNoteInput, UpdateNoteInput } from '../core/notes/note.schema.ts';
import type { NoteView } from '../core/notes/notes-service.ts';
import { Cursor, ErrorResponse, Owner, PageSize, Provenance, RecordId, SafeName } from './api-schemas.ts';
import {
  defineOperation,
  type HttpMethod,
  NoBody,
  NoParams,
  type ResponseSpec,
  type RouteVariant,
} from './operation.ts';

const ENTRY = 'lambdas/handlers/notes.lambda.ts';

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

const failures = {
  401: { description: 'No valid bearer token', schema: ErrorResponse },
  404: { description: "No such note in the caller's scope", schema: ErrorResponse },
  422: { description: 'The request failed validation; `issues` names the fields', schema: ErrorResponse },
  503: { description: 'Storage unavailable; nothing was committed', schema: ErrorResponse, headers: ['Retry-After'] },
} satisfies Record<number, ResponseSpec>;

export const createNote = defineOperation({
  summary: 'Create a note',
  tag: 'notes',
  routes: bothSpaces('createNote', 'POST', ''),
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'createNote', access: 'write' },
  params: NoParams,
  query: AgentQuery,
  body: CreateNoteInput,
  idempotent: true,
  responses: {
    201: { description: 'Created', schema: Note, headers: ['ETag', 'Location', 'Idempotent-Replayed'] },
    409: { description: 'Idempotency-Key reused with a different request', schema: ErrorResponse },
    413: { description: 'Request body too large', schema: ErrorResponse },
    ...failures,
  },
});

export const getNote = defineOperation({
  summary: 'Read a note (its current revision)',
  tag: 'notes',
  routes: bothSpaces('getNote', 'GET', '/{id}'),
  authenticated: true,
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
  lambda: { entry: ENTRY, handler: 'updateNote', access: 'write' },
  params: NoteParams,
  query: AgentQuery,
  body: UpdateNoteInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The new revision', schema: Note, headers: ['ETag'] },
    412: {
      description: 'If-Match is stale; the current ETag is in the ETag header',
      schema: ErrorResponse,
      headers: ['ETag'],
    },
    413: { description: 'Request body too large', schema: ErrorResponse },
    428: { description: 'If-Match is required', schema: ErrorResponse },
    ...failures,
  },
});

export const deleteNote = defineOperation({
  summary: 'Delete a note (appends a tombstone revision)',
  tag: 'notes',
  routes: bothSpaces('deleteNote', 'DELETE', '/{id}'),
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'deleteNote', access: 'write' },
  params: NoteParams,
  query: AgentQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: {
    204: { description: 'Deleted' },
    412: {
      description: 'If-Match is stale; the current ETag is in the ETag header',
      schema: ErrorResponse,
      headers: ['ETag'],
    },
    428: { description: 'If-Match is required', schema: ErrorResponse },
    ...failures,
  },
});

export const noteHistory = defineOperation({
  summary: 'List the revisions of a note, oldest first',
  tag: 'notes',
  routes: bothSpaces('listNoteHistory', 'GET', '/{id}/history'),
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'listNoteHistory', access: 'read' },
  params: NoteParams,
  query: ListQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of revisions', schema: NotePage }, ...failures },
});

/** The API's view of a note: the record envelope with the note's content flattened into it. */
export const toNoteResponse = (note: NoteView): z.input<typeof Note> => ({
  id: note.id,
  kind: 'note',
  owner: note.owner,
  revision: note.revision,
  etag: note.etag,
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
