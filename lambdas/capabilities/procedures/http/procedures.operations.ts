import * as z from 'zod';
import { Cursor, ErrorResponse, Owner, PageSize, Provenance, RecordId } from '../../../http/api-schemas.ts';
import { scopedFailures } from '../../../http/common-responses.ts';
import { etagOf } from '../../../http/entity-tags.ts';
import { defineOperation, type HttpMethod, NoBody, NoQuery, type ResponseSpec } from '../../../http/operation.ts';
import type { RecordView } from '../../../kernel/records/record-service.ts';
import { CandidateContent, PromoteInput, TrialInput } from '../candidate.schema.ts';
import { CreateProcedureInput, ProcedureContent, RefineProcedureInput } from '../procedure.schema.ts';
import {
  AlignmentInput,
  BlackboardEntry,
  BlackboardEntryInput,
  CompleteTaskInput,
  CreateTaskInput,
  PlanInput,
  StateEvidenceInput,
  StoredEvidence,
  TaskContent,
} from '../task.schema.ts';

/*
 * The procedural-memory API (reference 001), all of it inside one project: `/v1/projects/{projectId}/…`.
 * Members only (404 for everyone else, as for anything that does not exist); agents act by their own token.
 */

const ENTRY = 'lambdas/capabilities/procedures/procedures.lambda.ts';
const failures = scopedFailures('Nothing of that id in the project, or the caller is not in it');
const ROLE_REFUSED = {
  403: {
    description:
      "The caller is in the project but lacks the role this needs (code procedures.role_required: the manager's, or the node's assignee)",
    schema: ErrorResponse,
  },
} satisfies Record<number, ResponseSpec>;
const CONFLICT = {
  409: {
    description:
      'Not allowed from the current state (procedures.invalid_transition, procedures.retired, procedures.prerequisites_unmet, procedures.stale_candidate), or an Idempotency-Key reused',
    schema: ErrorResponse,
  },
} satisfies Record<number, ResponseSpec>;

const route = (operationId: string, method: HttpMethod, suffix: string) => [
  { operationId, method, path: `/v1/projects/{projectId}${suffix}`, project: true },
];
const read = (handler: string) => ({ entry: ENTRY, handler, access: 'read' as const });
const write = (handler: string) => ({ entry: ENTRY, handler, access: 'write' as const });

const IdParams = z.object({ id: RecordId }).strict();
const PageQuery = z.object({ limit: PageSize.optional(), cursor: Cursor.optional() }).strict();

/** A record as the API shows it: the envelope and the kind's content. */
const recordResponse = <Content extends z.ZodType>(id: string, kind: string, content: Content) =>
  z
    .object({
      id: z.string(),
      kind: z.literal(kind),
      owner: Owner,
      revision: z.number().int(),
      etag: z.string(),
      content,
      provenance: Provenance,
      createdAt: z.string(),
      updatedAt: z.string(),
      expiresAt: z.string(),
    })
    .meta({ id });
const pageOf = <Item extends z.ZodType>(id: string, item: Item) =>
  z.object({ items: z.array(item), nextCursor: z.string().optional() }).meta({ id });

export const Procedure = recordResponse('Procedure', 'procedure', ProcedureContent);
export const Task = recordResponse('Task', 'task', TaskContent);
export const TaskEntry = recordResponse('TaskEntry', 'task-record', BlackboardEntry);
export const TaskEvidence = recordResponse('TaskEvidence', 'task-evidence', StoredEvidence);
export const Candidate = recordResponse('ProcedureCandidate', 'procedure-candidate', CandidateContent);

export const toRecordResponse = <Content>(view: RecordView<Content>) => ({
  id: view.id,
  kind: view.kind,
  owner: view.owner,
  revision: view.revision,
  etag: etagOf(view.id, view.revision),
  content: view.content,
  provenance: view.provenance,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
  expiresAt: view.expiresAt,
});

const Weights = z.object({
  bm25: z.number(),
  vector: z.number(),
  logits: z.object({ bm25: z.number(), vector: z.number() }),
  cues: z.array(z.string()),
  adaptive: z.boolean(),
});

export const RetrieveInput = z
  .object({
    query: z.string().min(1).max(2000),
    facts: z.array(z.string().min(1).max(200)).max(100).default([]),
    k: z.number().int().min(1).max(20).optional(),
    adaptive: z.boolean().optional(),
  })
  .strict();
const RetrievalResponse = z
  .object({
    weights: Weights,
    candidates: z.number().int(),
    hits: z.array(
      z.object({
        procedure: Procedure,
        score: z.number(),
        features: z.object({ bm25: z.number(), bm25Raw: z.number(), similarity: z.number() }),
        flags: z.array(z.literal('instruction-like')).optional().meta({
          description: 'Text in the procedure reads as an instruction to the agent: shown as data, never followed',
        }),
      }),
    ),
  })
  .meta({ id: 'ProcedureRetrieval' });

export const FeedbackInput = z
  .object({ query: z.string().min(1).max(2000), served: z.enum(['bm25', 'vector']) })
  .strict();
const FeedbackResponse = z
  .object({ before: Weights, after: Weights, bias: z.object({ bm25: z.number(), vector: z.number() }) })
  .meta({ id: 'RetrievalFeedback' });

const StateResponse = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())), conflicts: z.array(z.string()) })
  .meta({ id: 'TaskState' });
const AlignmentResponse = z
  .object({
    agent: z.string(),
    goal: z.object({ value: z.number(), similarity: z.number(), consistency: z.number(), realign: z.boolean() }),
    plan: z
      .object({
        value: z.number(),
        nodeEdits: z.array(z.string()),
        edgeDifferences: z.array(z.object({ from: z.string(), to: z.string(), in: z.enum(['local', 'assigned']) })),
        realign: z.boolean(),
      })
      .optional(),
    state: z.object({ conflicts: z.array(z.string()) }),
    realign: z.boolean(),
    corrections: z.array(TaskEntry),
  })
  .meta({ id: 'TaskAlignment' });
const EntryResponse = z.object({ entry: TaskEntry, task: Task }).meta({ id: 'TaskEntryAppended' });
const CompletionResponse = z
  .object({
    task: Task,
    candidate: Candidate.optional(),
    supported: z.object({ nodes: z.array(z.string()), edges: z.number().int(), unsupported: z.array(z.string()) }),
  })
  .meta({ id: 'TaskCompletion' });
const PromotionResponse = z
  .object({
    candidate: Candidate,
    decision: z
      .object({
        accept: z.boolean(),
        failedGates: z.array(z.string()),
        safetyRisk: z.number(),
        riskySteps: z.array(z.object({ step: z.string(), risk: z.number() })),
        trials: z.number().int(),
        qualifyingTrials: z.number().int(),
        meanNetBenefit: z.number().nullable(),
        summaryScore: z.number().optional(),
      })
      .optional(),
    procedure: Procedure.optional(),
  })
  .meta({ id: 'ProcedurePromotion' });

const createdWith = (schema: z.ZodType, description = 'Created') => ({
  201: { description, schema, headers: ['ETag', 'Location', 'Idempotent-Replayed'] as const },
});

// Procedures --------------------------------------------------------------------------------------------

export const createProcedure = defineOperation({
  summary: 'Create a procedure (version 1.0 unless given): metadata, steps, prerequisite DAG, warnings',
  tag: 'procedures',
  routes: route('createProcedure', 'POST', '/procedures'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('createProcedure'),
  params: z.object({}).strict(),
  query: NoQuery,
  body: CreateProcedureInput,
  idempotent: true,
  responses: { ...createdWith(Procedure), ...failures, ...ROLE_REFUSED },
});

export const listProcedures = defineOperation({
  summary: "List the project's procedures (their current revisions)",
  tag: 'procedures',
  routes: route('listProcedures', 'GET', '/procedures'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('listProcedures'),
  params: z.object({}).strict(),
  query: PageQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of procedures', schema: pageOf('ProcedurePage', Procedure) }, ...failures },
});

export const getProcedure = defineOperation({
  summary: 'Read a procedure (its active revision)',
  tag: 'procedures',
  routes: route('getProcedure', 'GET', '/procedures/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('getProcedure'),
  params: IdParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The procedure', schema: Procedure, headers: ['ETag'] }, ...failures },
});

export const procedureHistory = defineOperation({
  summary: 'List the revisions of a procedure, oldest first (superseded versions included)',
  tag: 'procedures',
  routes: route('listProcedureHistory', 'GET', '/procedures/{id}/history'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('listProcedureHistory'),
  params: IdParams,
  query: PageQuery,
  body: NoBody,
  responses: {
    200: { description: 'A page of revisions', schema: pageOf('ProcedureHistory', Procedure) },
    ...failures,
  },
});

export const refineProcedure = defineOperation({
  summary: 'Refine a procedure: a new active revision (the next minor version unless given)',
  tag: 'procedures',
  routes: route('refineProcedure', 'POST', '/procedures/{id}/refine'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('refineProcedure'),
  params: IdParams,
  query: NoQuery,
  body: RefineProcedureInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The new revision', schema: Procedure, headers: ['ETag'] },
    ...failures,
    ...CONFLICT,
  },
});

export const specializeProcedure = defineOperation({
  summary: 'Specialise a procedure: a context-specific variant linked to the parent revision',
  tag: 'procedures',
  routes: route('specializeProcedure', 'POST', '/procedures/{id}/specialize'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('specializeProcedure'),
  params: IdParams,
  query: NoQuery,
  body: CreateProcedureInput,
  idempotent: true,
  responses: { ...createdWith(Procedure), ...failures, ...ROLE_REFUSED, ...CONFLICT },
});

export const retireProcedure = defineOperation({
  summary: 'Retire a procedure: it leaves retrieval; its history stays',
  tag: 'procedures',
  routes: route('retireProcedure', 'POST', '/procedures/{id}/retire'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('retireProcedure'),
  params: IdParams,
  query: NoQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The retired revision', schema: Procedure, headers: ['ETag'] },
    ...failures,
    ...CONFLICT,
  },
});

export const retrieveProcedures = defineOperation({
  summary: 'Retrieve procedures for a task (eq. 3): context-filtered, BM25 and hashed similarity by adaptive weights',
  tag: 'procedures',
  routes: route('retrieveProcedures', 'POST', '/procedures/retrieve'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('retrieveProcedures'),
  params: z.object({}).strict(),
  query: NoQuery,
  body: RetrieveInput,
  responses: { 200: { description: 'The top K with features and weights', schema: RetrievalResponse }, ...failures },
});

export const procedureFeedback = defineOperation({
  summary: "Say which signal served a retrieval: one gradient step on the project's weights",
  tag: 'procedures',
  routes: route('procedureRetrievalFeedback', 'POST', '/procedures/feedback'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('procedureRetrievalFeedback'),
  params: z.object({}).strict(),
  query: NoQuery,
  body: FeedbackInput,
  responses: { 200: { description: 'The weights before and after', schema: FeedbackResponse }, ...failures },
});

// Tasks -------------------------------------------------------------------------------------------------

export const createTask = defineOperation({
  summary: 'Create a task graph from a procedure (steps bound to agents) or a supplied plan (manager)',
  tag: 'tasks',
  routes: route('createTask', 'POST', '/tasks'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('createTask'),
  params: z.object({}).strict(),
  query: NoQuery,
  body: CreateTaskInput,
  idempotent: true,
  responses: { ...createdWith(Task), ...failures, ...ROLE_REFUSED },
});

export const listTasks = defineOperation({
  summary: "List the project's tasks (manager)",
  tag: 'tasks',
  routes: route('listTasks', 'GET', '/tasks'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('listTasks'),
  params: z.object({}).strict(),
  query: PageQuery,
  body: NoBody,
  responses: {
    200: { description: 'A page of tasks', schema: pageOf('TaskPage', Task) },
    ...failures,
    ...ROLE_REFUSED,
  },
});

export const getTask = defineOperation({
  summary: "Read a task: its graph, nodes' status and assignees (the manager and the task's agents)",
  tag: 'tasks',
  routes: route('getTask', 'GET', '/tasks/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('getTask'),
  params: IdParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The task', schema: Task, headers: ['ETag'] }, ...failures },
});

export const replanTask = defineOperation({
  summary: 'Replace the plan: kept ids keep their status unless changed; changed steps make downstream stale (manager)',
  tag: 'tasks',
  routes: route('replanTask', 'PUT', '/tasks/{id}/plan'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('replanTask'),
  params: IdParams,
  query: NoQuery,
  body: PlanInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The replanned task', schema: Task, headers: ['ETag'] },
    ...failures,
    ...ROLE_REFUSED,
    ...CONFLICT,
  },
});

export const appendTaskRecord = defineOperation({
  summary: "Write a blackboard entry against a node, as the caller (its assignee, or the manager's verification)",
  tag: 'tasks',
  routes: route('appendTaskRecord', 'POST', '/tasks/{id}/records'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('appendTaskRecord'),
  params: IdParams,
  query: NoQuery,
  body: BlackboardEntryInput,
  idempotent: true,
  responses: { ...createdWith(EntryResponse), ...failures, ...ROLE_REFUSED, ...CONFLICT },
});

export const listTaskRecords = defineOperation({
  summary: "The task's blackboard feed, oldest first, corrections included",
  tag: 'tasks',
  routes: route('listTaskRecords', 'GET', '/tasks/{id}/records'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('listTaskRecords'),
  params: IdParams,
  query: PageQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of entries', schema: pageOf('TaskEntryPage', TaskEntry) }, ...failures },
});

export const addTaskEvidence = defineOperation({
  summary: 'Report state evidence for an entity.attribute key (value, tier, source, time, confidence)',
  tag: 'tasks',
  routes: route('addTaskEvidence', 'POST', '/tasks/{id}/state'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('addTaskEvidence'),
  params: IdParams,
  query: NoQuery,
  body: StateEvidenceInput,
  idempotent: true,
  responses: { ...createdWith(TaskEvidence), ...failures, ...CONFLICT },
});

export const getTaskState = defineOperation({
  summary: 'The resolved state (§B.3): per key the value and tier, or why it is unresolved; conflicting keys',
  tag: 'tasks',
  routes: route('getTaskState', 'GET', '/tasks/{id}/state'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('getTaskState'),
  params: IdParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The resolution', schema: StateResponse }, ...failures },
});

export const alignTask = defineOperation({
  summary: "Goal, plan and state divergence for one agent; corrections go to the affected agents' feed (manager)",
  tag: 'tasks',
  routes: route('alignTask', 'POST', '/tasks/{id}/alignment'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('alignTask'),
  params: IdParams,
  query: NoQuery,
  body: AlignmentInput,
  responses: {
    200: { description: 'The signals and corrections', schema: AlignmentResponse },
    ...failures,
    ...ROLE_REFUSED,
  },
});

export const completeTask = defineOperation({
  summary: 'Close a task; a completed one leaves its verified structure as a candidate (manager)',
  tag: 'tasks',
  routes: route('completeTask', 'POST', '/tasks/{id}/complete'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('completeTask'),
  params: IdParams,
  query: NoQuery,
  body: CompleteTaskInput,
  responses: {
    200: { description: 'The closed task and its candidate', schema: CompletionResponse },
    ...failures,
    ...ROLE_REFUSED,
    ...CONFLICT,
  },
});

// Candidates --------------------------------------------------------------------------------------------

export const listCandidates = defineOperation({
  summary: 'List candidate procedures and revisions (kept apart from the active pool)',
  tag: 'procedures',
  routes: route('listProcedureCandidates', 'GET', '/candidates'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('listProcedureCandidates'),
  params: z.object({}).strict(),
  query: PageQuery,
  body: NoBody,
  responses: {
    200: { description: 'A page of candidates', schema: pageOf('ProcedureCandidatePage', Candidate) },
    ...failures,
  },
});

export const getCandidate = defineOperation({
  summary: 'Read a candidate with its trials',
  tag: 'procedures',
  routes: route('getProcedureCandidate', 'GET', '/candidates/{id}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: read('getProcedureCandidate'),
  params: IdParams,
  query: NoQuery,
  body: NoBody,
  responses: {
    200: { description: 'The candidate', schema: Candidate, headers: ['ETag'] },
    ...failures,
    ...ROLE_REFUSED,
  },
});

export const recordTrial = defineOperation({
  summary:
    'Record a reproduction trial: candidate and baseline reward, cost, state verification, causal support (manager)',
  tag: 'procedures',
  routes: route('recordProcedureTrial', 'POST', '/candidates/{id}/trials'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('recordProcedureTrial'),
  params: IdParams,
  query: NoQuery,
  body: TrialInput,
  idempotent: true,
  responses: {
    200: {
      description: 'The candidate with the trial (a replay under the same Idempotency-Key records nothing again)',
      schema: Candidate,
      headers: ['ETag', 'Idempotent-Replayed'],
    },
    ...failures,
    ...ROLE_REFUSED,
    ...CONFLICT,
  },
});

export const promoteCandidate = defineOperation({
  summary:
    'Promote a candidate through the gates of eq. 9 (or attach only its warnings), by compare-and-set on the head (manager)',
  tag: 'procedures',
  routes: route('promoteProcedureCandidate', 'POST', '/candidates/{id}/promote'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: write('promoteProcedureCandidate'),
  params: IdParams,
  query: NoQuery,
  body: PromoteInput,
  responses: {
    200: { description: 'The decision, and the procedure revision it made', schema: PromotionResponse },
    ...failures,
    ...ROLE_REFUSED,
    ...CONFLICT,
  },
});

/** In the order the OpenAPI document lists them. */
export const PROCEDURES_OPERATIONS = [
  createProcedure,
  listProcedures,
  retrieveProcedures,
  procedureFeedback,
  getProcedure,
  procedureHistory,
  refineProcedure,
  specializeProcedure,
  retireProcedure,
  createTask,
  listTasks,
  getTask,
  replanTask,
  appendTaskRecord,
  listTaskRecords,
  addTaskEvidence,
  getTaskState,
  alignTask,
  completeTask,
  listCandidates,
  getCandidate,
  recordTrial,
  promoteCandidate,
] as const;
