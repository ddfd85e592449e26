import * as admin from './admin.api.ts';
import * as notes from './notes.api.ts';
import type { Operation } from './operation.ts';
import * as system from './system.api.ts';

/** Every operation of the API, in the order the OpenAPI document lists them. */
export const API_OPERATIONS: readonly Operation[] = [
  system.getHealth,
  system.getOpenApiDocument,
  notes.createNote,
  notes.listNotes,
  notes.getNote,
  notes.updateNote,
  notes.deleteNote,
  notes.noteHistory,
  admin.listAudit,
  admin.startWorkflow,
  admin.getWorkflowRun,
];
