import * as z from 'zod';
import { ValidationFailedError } from '../../kernel/errors/domain-error.ts';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import { refuseGraphDefects } from './dependency-graph.ts';

/*
 * A versioned procedure (reference 001 §3): S = (M, Π, G, W) — metadata, the steps with their instructions, a
 * DAG of prerequisites between the steps, and conditional warnings with their trigger and evidence. Each change
 * is a new revision of the record (the kernel's append-only revisions); the head is the active version and the
 * superseded ones stay in its history.
 */

export const PROCEDURE = defineRecordKind({ name: 'procedure', searchable: true });

export const PROCEDURE_STEPS_MAX = 100;
export const PROCEDURE_EDGES_MAX = 400;
export const PROCEDURE_WARNINGS_MAX = 50;
export const PROCEDURE_TEXT_MAX = 2_000;
export const PROCEDURE_LIST_MAX = 30;

/** A persistent step id: what tasks, edges, records and plan comparison refer to; kept across revisions. */
export const StepId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a step id is 1-64 characters of A-Z, a-z, 0-9, _ or -');

const Text = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(PROCEDURE_TEXT_MAX, `${what} is at most ${PROCEDURE_TEXT_MAX} characters`)
    .refine((text) => text.trim().length > 0, `${what} must not be blank`);

const Phrase = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'at most 200 characters')
  .refine((text) => text.trim().length > 0, 'must not be blank');

const Phrases = z
  .array(Phrase)
  .max(PROCEDURE_LIST_MAX, `at most ${PROCEDURE_LIST_MAX} entries`)
  .refine((list) => new Set(list.map((entry) => entry.toLowerCase())).size === list.length, 'entries must be unique');

const Tag = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a tag is 1-64 characters of A-Z, a-z, 0-9, _, ., : or -');

/** `major.minor`, as the reference writes versions (v1.0, v1.1). */
export const ProcedureVersion = z.string().regex(/^[0-9]{1,4}[.][0-9]{1,4}$/, 'a version is major.minor, e.g. 1.0');

export const ProcedureMetadata = z
  .object({
    title: Text('title'),
    description: Text('description'),
    taskFamily: Phrase,
    applicability: Phrases.default([]),
    tags: z.array(Tag).max(PROCEDURE_LIST_MAX).default([]),
    /** Facts that must all be among the task's verified facts for the procedure to be a candidate. */
    contextConditions: Phrases.default([]),
    /** Facts any one of which among the task's verified facts rules the procedure out. */
    exclusions: Phrases.default([]),
  })
  .strict();

export const ProcedureStep = z.object({ id: StepId, instruction: Text('instruction') }).strict();
export type ProcedureStep = z.infer<typeof ProcedureStep>;

export const Prerequisite = z.object({ from: StepId, to: StepId }).strict();
export type Prerequisite = z.infer<typeof Prerequisite>;

export const ConditionalWarning = z
  .object({
    text: Text('warning'),
    /** When it applies: a condition phrase matched like the context conditions. */
    trigger: Phrase,
    /** What supports it: task, record or trial ids. */
    evidence: z.array(z.string().regex(/^[A-Za-z0-9_:#.-]{1,128}$/, 'an evidence id is 1-128 id characters')).max(20),
  })
  .strict();
export type ConditionalWarning = z.infer<typeof ConditionalWarning>;

export const PROCEDURE_STATUSES = ['active', 'retired'] as const;
export type ProcedureStatus = (typeof PROCEDURE_STATUSES)[number];

/** The parent a specialised variant was derived from, at the revision it was derived from. */
export const ProcedureLineage = z.object({ procedureId: z.string().min(1).max(64), revision: z.number().int().min(1) });

/** Steps and prerequisites checked together: ids unique, every edge between known steps, no self-loop, duplicate or cycle. */
const checkGraph = (
  value: { steps: readonly ProcedureStep[]; prerequisites: readonly Prerequisite[] },
  context: z.core.$RefinementCtx,
) =>
  refuseGraphDefects(
    value.steps.map((step) => step.id),
    value.prerequisites,
    { node: 'step', nodes: 'steps', edge: 'prerequisite', edges: 'prerequisites' },
    context,
  );

const ProcedureBody = z
  .object({
    metadata: ProcedureMetadata,
    steps: z.array(ProcedureStep).min(1, 'a procedure has at least one step').max(PROCEDURE_STEPS_MAX),
    prerequisites: z.array(Prerequisite).max(PROCEDURE_EDGES_MAX).default([]),
    warnings: z.array(ConditionalWarning).max(PROCEDURE_WARNINGS_MAX).default([]),
  })
  .strict();

/** A procedure as stored. `version` is the human version; the record's revision counts every change. */
export const ProcedureContent = ProcedureBody.extend({
  version: ProcedureVersion,
  status: z.enum(PROCEDURE_STATUSES),
  specializes: ProcedureLineage.optional(),
  /** Why this revision exists: created, refined, specialised, retired, or promoted from a candidate. */
  change: z
    .object({
      kind: z.enum(['created', 'refined', 'specialized', 'retired', 'promoted', 'warnings_attached']),
      candidateId: z.string().min(1).max(64).optional(),
      summaryScore: z.number().min(0).max(1).optional(),
    })
    .strict(),
})
  .strict()
  .superRefine(checkGraph);
export type ProcedureContent = z.infer<typeof ProcedureContent>;

export const CreateProcedureInput = ProcedureBody.extend({ version: ProcedureVersion.default('1.0') })
  .strict()
  .superRefine(checkGraph);
export type CreateProcedureInput = z.infer<typeof CreateProcedureInput>;

/** A refinement replaces the structure and warnings; step ids that stay are the same steps. */
export const RefineProcedureInput = ProcedureBody.extend({ version: ProcedureVersion.optional() })
  .strict()
  .superRefine(checkGraph);
export type RefineProcedureInput = z.infer<typeof RefineProcedureInput>;

const VERSION_PART_MAX = 9999;

/** The next minor version: 1.0 → 1.1, 1.9 → 1.10, and past 9999 the next major (1.9999 → 2.0). */
export const nextMinorVersion = (version: string): string => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (minor < VERSION_PART_MAX) return `${major}.${minor + 1}`;
  if (major < VERSION_PART_MAX) return `${major + 1}.0`;
  throw new ValidationFailedError('The procedure has no version after this one', [
    { path: 'version', message: 'give a version explicitly' },
  ]);
};

/** Compares major.minor numerically. */
export const compareVersions = (a: string, b: string): number => {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
};
