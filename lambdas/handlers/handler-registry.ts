import type { Backend } from '../core/backend.ts';
import type { ApiHandler } from '../http/http-operation.ts';
import * as admin from './admin.handlers.ts';
import * as guardrails from './guardrails.handlers.ts';
import * as learning from './learning.handlers.ts';
import * as notes from './notes.handlers.ts';
import * as system from './system.handlers.ts';

/**
 * Every Lambda handler by its export name (`x-memory-hub.lambda.handler`), built on one backend: what the
 * local server dispatches to. The `*.lambda.ts` entry points export the same names for AWS.
 */
export const createHandlers = (backend: Backend): Readonly<Record<string, ApiHandler>> => ({
  getHealth: system.getHealthHandler(backend),
  getOpenApiDocument: system.getOpenApiDocumentHandler(backend),
  createNote: notes.createNoteHandler(backend),
  getNote: notes.getNoteHandler(backend),
  listNotes: notes.listNotesHandler(backend),
  updateNote: notes.updateNoteHandler(backend),
  deleteNote: notes.deleteNoteHandler(backend),
  listNoteHistory: notes.listNoteHistoryHandler(backend),
  appendSessionEvent: learning.appendSessionEventHandler(backend),
  listSessionEvents: learning.listSessionEventsHandler(backend),
  listBeliefs: learning.listBeliefsHandler(backend),
  getBelief: learning.getBeliefHandler(backend),
  listBeliefHistory: learning.listBeliefHistoryHandler(backend),
  correctBelief: learning.correctBeliefHandler(backend),
  forgetBelief: learning.forgetBeliefHandler(backend),
  resetBeliefs: learning.resetBeliefsHandler(backend),
  getAppliedMemory: learning.getAppliedMemoryHandler(backend),
  putGuardrail: guardrails.putGuardrailHandler(backend),
  getGuardrail: guardrails.getGuardrailHandler(backend),
  listGuardrails: guardrails.listGuardrailsHandler(backend),
  deleteGuardrail: guardrails.deleteGuardrailHandler(backend),
  listAudit: admin.listAuditHandler(backend),
  startWorkflow: admin.startWorkflowHandler(backend),
  getWorkflowRun: admin.getWorkflowRunHandler(backend),
});
