import * as admin from './admin.api.ts';
import * as guardrails from './guardrails.api.ts';
import * as learning from './learning.api.ts';
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
  learning.appendSessionEvent,
  learning.listSessionEvents,
  learning.listBeliefs,
  learning.getBelief,
  learning.beliefHistory,
  learning.correctBelief,
  learning.forgetBelief,
  learning.resetBeliefs,
  learning.getAppliedMemory,
  guardrails.putGuardrail,
  guardrails.getGuardrail,
  guardrails.listGuardrails,
  guardrails.deleteGuardrail,
  admin.listAudit,
  admin.startWorkflow,
  admin.getWorkflowRun,
];
