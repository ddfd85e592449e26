import * as z from 'zod';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import {
  ConditionalWarning,
  Prerequisite,
  ProcedureMetadata,
  ProcedureStep,
  ProcedureVersion,
} from './procedure.schema.ts';
import { ProcedureReference } from './task.schema.ts';

/*
 * A candidate procedure or revision (reference 001 §4.3–4.4, §B.5): the supported structure a completed task
 * left, kept apart from the active pool. It becomes active only through recorded trials and the gates of
 * eq. 9, by a compare-and-set on the head revision it was built from (eq. 16).
 */

export const PROCEDURE_CANDIDATE = defineRecordKind({ name: 'procedure-candidate' });

export const TRIALS_MAX = 200;

export const TrialInput = z
  .object({
    candidateReward: z.number().min(-1000).max(1000),
    baselineReward: z.number().min(-1000).max(1000),
    cost: z.number().min(0).max(1000),
    stateVerified: z.boolean(),
    causalSupport: z.boolean(),
  })
  .strict();
export type TrialInput = z.infer<typeof TrialInput>;

export const StoredTrial = TrialInput.extend({
  recordedAt: z.string(),
  recordedBy: z.string(),
  /** A digest of the Idempotency-Key it was recorded under, and its request's fingerprint: a retry records nothing twice. */
  idempotencyKey: z.string().optional(),
  fingerprint: z.string().optional(),
}).strict();

export const CANDIDATE_STATUSES = ['candidate', 'rejected', 'promoted'] as const;

export const CandidateContent = z
  .object({
    taskId: z.string().min(1).max(64),
    /** The active revision this would revise; absent for a new procedure. */
    base: ProcedureReference.optional(),
    metadata: ProcedureMetadata,
    version: ProcedureVersion,
    steps: z.array(ProcedureStep).max(100),
    prerequisites: z.array(Prerequisite).max(400),
    warnings: z.array(ConditionalWarning).max(50),
    benefit: z.number(),
    cost: z.number(),
    /** Eq. 12, at proposal. */
    claimUtility: z.number(),
    causalConfidence: z.number().min(0).max(1),
    safetyRisk: z.number().min(0).max(1),
    trials: z.array(StoredTrial).max(TRIALS_MAX),
    status: z.enum(CANDIDATE_STATUSES),
    /** Why it was rejected, as reason codes. */
    reasons: z.array(z.string()).max(10),
    /** The procedure revision promotion made (or the warnings were attached to). */
    outcome: z.object({ procedureId: z.string(), revision: z.number().int() }).optional(),
    warningsAttached: z.boolean(),
  })
  .strict();
export type CandidateContent = z.infer<typeof CandidateContent>;

export const PromoteInput = z
  .object({
    /** `structure`: the whole candidate, through the gates; `warnings`: only its warnings, onto the base's head. */
    apply: z.enum(['structure', 'warnings']).default('structure'),
  })
  .strict();
export type PromoteInput = z.infer<typeof PromoteInput>;
