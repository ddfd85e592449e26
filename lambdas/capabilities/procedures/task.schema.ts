import * as z from 'zod';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import { refuseGraphDefects } from './dependency-graph.ts';
import { Prerequisite, StepId } from './procedure.schema.ts';
import { EVIDENCE_TIERS } from './state-resolution.ts';

/*
 * A team task (reference 001 §3, §4.1): its objective and constraints, the verified facts procedures were
 * retrieved with, the procedure revisions it was instantiated from, and its graph — nodes with persistent ids,
 * an action, an assignee (an agent's principal) and a status, and prerequisite edges. Its blackboard (eq. 4) and
 * its state evidence (§B.3) are journals narrowed to the task: append-only, one item per entry.
 */

export const TASK = defineRecordKind({ name: 'task' });
export const TASK_RECORD = defineRecordKind({ name: 'task-record', journal: true, audited: false });
export const TASK_EVIDENCE = defineRecordKind({ name: 'task-evidence', journal: true, audited: false });

export const TASK_NODES_MAX = 100;
const TEXT_MAX = 2_000;

const Text = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(TEXT_MAX, `${what} is at most ${TEXT_MAX} characters`)
    .refine((text) => text.trim().length > 0, `${what} must not be blank`);
const OptionalText = z.string().max(TEXT_MAX, `at most ${TEXT_MAX} characters`);
const Phrases = z.array(z.string().min(1).max(200)).max(30, 'at most 30 entries');
/** An agent as its token names it: the `sub` of the agent's own token. */
export const AgentId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'an agent is 1-64 characters of A-Z, a-z, 0-9, _ or -');

export const NODE_STATUSES = ['pending', 'in_progress', 'done', 'verified', 'failed', 'stale'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export const TaskNode = z
  .object({
    id: StepId,
    action: Text('action'),
    assignee: AgentId,
    status: z.enum(NODE_STATUSES),
    /** The procedure step it was bound from, when it was. */
    step: StepId.optional(),
  })
  .strict();
export type TaskNode = z.infer<typeof TaskNode>;

export const TASK_STATUSES = ['open', 'completed', 'failed', 'unresolved'] as const;

export const ProcedureReference = z.object({
  procedureId: z.string().min(1).max(64),
  revision: z.number().int().min(1),
});
export type ProcedureReference = z.infer<typeof ProcedureReference>;

/** The graph rules of procedures, each defect naming the nodes by their place in `nodes`. */
const checkTaskGraph = (
  value: { nodes: readonly { id: string }[]; edges: readonly Prerequisite[] },
  context: z.core.$RefinementCtx,
) =>
  refuseGraphDefects(
    value.nodes.map((node) => node.id),
    value.edges,
    { node: 'node', nodes: 'nodes', edge: 'edge', edges: 'edges' },
    context,
  );

export const TaskContent = z
  .object({
    objective: Text('objective'),
    constraints: Phrases,
    facts: Phrases,
    procedures: z.array(ProcedureReference).max(5),
    nodes: z.array(TaskNode).min(1).max(TASK_NODES_MAX),
    edges: z.array(Prerequisite).max(400),
    status: z.enum(TASK_STATUSES),
    /** Counts replans: each one a new revision of the task with the ids it kept. */
    plan: z.number().int().min(1),
    /** Set on completion: the candidate its supported structure became, if any. */
    candidateId: z.string().max(64).optional(),
  })
  .strict()
  .superRefine(checkTaskGraph);
export type TaskContent = z.infer<typeof TaskContent>;

/** A node as a plan gives it: an id to keep (a new step has none and gets one), an action and an assignee. */
const PlannedNode = z.object({ id: StepId.optional(), action: Text('action'), assignee: AgentId }).strict();

/**
 * A plan refers to its nodes by `ref`: the node's id when it has one, else its place (`#0`, `#1`, …) in `nodes`,
 * so that an edge can name a new node before it has an id.
 */
export const PlanInput = z
  .object({
    nodes: z.array(PlannedNode).min(1).max(TASK_NODES_MAX),
    edges: z.array(z.object({ from: z.string().min(1).max(64), to: z.string().min(1).max(64) }).strict()).max(400),
  })
  .strict();
export type PlanInput = z.infer<typeof PlanInput>;

export const CreateTaskInput = z
  .object({
    objective: Text('objective'),
    constraints: Phrases.default([]),
    facts: Phrases.default([]),
    /** Instantiate from these procedures (their active revisions), binding each step to an assignee … */
    fromProcedure: z
      .object({
        procedureId: z.string().min(1).max(64),
        /** Step id → the agent it is assigned to; every step needs one. */
        assignments: z.record(StepId, AgentId),
      })
      .strict()
      .optional(),
    /** … or from a plan the manager supplies. */
    plan: PlanInput.optional(),
  })
  .strict()
  .refine((input) => (input.plan === undefined) !== (input.fromProcedure === undefined), {
    message: 'give either plan or fromProcedure',
    path: ['plan'],
  });
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;

/** What an entry says happened to its node: work started, finished, failed, verified by the manager, or only observed. */
export const RECORD_OUTCOMES = ['observed', 'started', 'done', 'failed', 'verified'] as const;
export type RecordOutcome = (typeof RECORD_OUTCOMES)[number];

/** Eq. 4's b = (q, o, u, r, ε), linked to a node; the agent is the caller, never a field. */
export const BlackboardEntryInput = z
  .object({
    node: StepId,
    subtask: OptionalText.default(''),
    observation: OptionalText.default(''),
    action: OptionalText.default(''),
    result: OptionalText.default(''),
    error: OptionalText.default(''),
    outcome: z.enum(RECORD_OUTCOMES).default('observed'),
  })
  .strict();
export type BlackboardEntryInput = z.infer<typeof BlackboardEntryInput>;

/** A blackboard entry as stored: the input, who wrote it, and the kind (an agent's entry or the service's correction). */
export const BlackboardEntry = BlackboardEntryInput.extend({
  agent: AgentId,
  entry: z.enum(['execution', 'correction']),
  /** For a correction: the agent it is addressed to. */
  to: AgentId.optional(),
}).strict();
export type BlackboardEntry = z.infer<typeof BlackboardEntry>;

export const StateEvidenceInput = z
  .object({
    key: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a state key is entity.attribute, 1-128 id characters'),
    value: z.union([z.string().max(500), z.number(), z.boolean(), z.null()]),
    tier: z.enum(EVIDENCE_TIERS),
    /** The tool, API or artefact the value was read from; an inference's source is always its agent. */
    source: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a source is 1-64 id characters')
      .optional(),
    observedAt: z.iso.datetime().optional(),
    confidence: z.number().min(0).max(1),
  })
  .strict();
export type StateEvidenceInput = z.infer<typeof StateEvidenceInput>;

export const StoredEvidence = StateEvidenceInput.extend({
  source: z.string(),
  observedAt: z.string(),
  reportedBy: AgentId,
}).strict();
export type StoredEvidence = z.infer<typeof StoredEvidence>;

export const AlignmentInput = z
  .object({
    agent: AgentId,
    /** The agent's current goal g_a. */
    goal: Text('goal'),
    /** The agent's local plan G_a; left out, only goal and state are compared. */
    plan: z
      .object({
        nodes: z.array(z.object({ id: StepId, action: Text('action') }).strict()).max(TASK_NODES_MAX),
        edges: z.array(Prerequisite).max(400),
      })
      .strict()
      .optional(),
  })
  .strict();
export type AlignmentInput = z.infer<typeof AlignmentInput>;

export const CompleteTaskInput = z
  .object({
    outcome: z.enum(['completed', 'failed', 'unresolved']),
    /** The candidate's claimed benefit and cost (eq. 12), for the precheck. */
    benefit: z.number().min(-1000).max(1000).default(0),
    cost: z.number().min(0).max(1000).default(0),
    causalConfidence: z.number().min(0).max(1).default(0),
    safetyRisk: z.number().min(0).max(1).default(0),
    /** Lessons to attach as conditional warnings, with what triggers them. */
    lessons: z
      .array(
        z
          .object({
            text: Text('lesson'),
            trigger: z
              .string()
              .min(1)
              .max(200)
              .refine((text) => text.trim().length > 0, 'trigger must not be blank'),
          })
          .strict(),
      )
      .max(20)
      .default([]),
  })
  .strict();
export type CompleteTaskInput = z.infer<typeof CompleteTaskInput>;
