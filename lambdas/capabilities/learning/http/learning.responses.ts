import * as z from 'zod';
import { ClampRecord, RuleValue } from '../../guardrails/public.ts';
import { BeliefStatus, BelievedValueStatus, RuleBasis, RuleCardinality, RuleKind } from '../belief.schema.ts';
import { SessionEventInput } from '../session-event.schema.ts';

/* The shapes learned memory's operations answer with (and the OpenAPI document describes). */

export const BelievedValueResponse = z
  .object({
    value: RuleValue,
    status: BelievedValueStatus,
    confidence: z.number(),
    support: z.number().int(),
    refuted: z.number().int(),
    /** Sessions that confirmed the value (the newest ones kept). */
    sessions: z.number().int(),
    firstSeen: z.string().optional(),
    lastSeen: z.string().optional(),
    lastRefuted: z.string().optional(),
    declaredAt: z.string().optional(),
    retractedAt: z.string().optional(),
    /** Ids of the newest session events that confirmed the value. */
    evidence: z.array(z.string()),
  })
  .meta({ id: 'BelievedValue' });

export const BeliefResponse = z
  .object({
    id: z.string(),
    key: z.string(),
    kind: RuleKind,
    agent: z.string().optional(),
    cardinality: RuleCardinality,
    basis: RuleBasis,
    status: BeliefStatus,
    applied: z.boolean().meta({
      description:
        "Whether the applied view serves it: a mature profile fact or preference (guardrails still bound the value, and an agent's own preference on the same key comes first for that agent). Patterns are learned but not applied.",
    }),
    appliedValue: z.union([RuleValue, z.array(RuleValue)]).optional(),
    confidence: z.number(),
    statusChangedAt: z.string(),
    values: z.array(BelievedValueResponse),
    superseded: z.array(z.object({ value: RuleValue, by: RuleValue, at: z.string() })),
    revision: z.number().int(),
    etag: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Belief' });

export const ValueAssessmentResponse = z.object({
  value: RuleValue,
  confirmationsInWindow: z.number().int(),
  sessionsInWindow: z.number().int(),
  /** Recency-weighted confirmations minus refutations in the window: what competing values are compared on. */
  netSupport: z.number(),
  fresh: z.boolean(),
  declared: z.boolean(),
  recurs: z.boolean(),
  retracted: z.boolean(),
  expired: z.boolean(),
});

export const InspectedBeliefResponse = BeliefResponse.extend({
  why: z.array(ValueAssessmentResponse),
  /** How the guardrails in force (the organisation's, and the project's when `?project=` is given) treat it. */
  clamps: z.array(ClampRecord),
}).meta({ id: 'InspectedBelief' });

export const BeliefPage = z
  .object({ items: z.array(BeliefResponse), nextCursor: z.string().optional() })
  .meta({ id: 'BeliefPage' });

export const WithheldResponse = z
  .object({ key: z.string(), kind: RuleKind, reasons: z.array(z.string()) })
  .meta({ id: 'WithheldCandidate', description: 'Suggested by the event but not learned; reasons never echo it' });

export const SessionEventResponse = z
  .object({
    id: z.string(),
    session: z.string(),
    event: SessionEventInput,
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'SessionEvent' });

export const AppendedEventResponse = z
  .object({
    event: SessionEventResponse,
    beliefs: z.array(BeliefResponse),
    withheld: z.array(WithheldResponse),
  })
  .meta({ id: 'AppendedSessionEvent' });

export const SessionEventPage = z
  .object({ items: z.array(SessionEventResponse), nextCursor: z.string().optional() })
  .meta({ id: 'SessionEventPage' });

export const AppliedEntryResponse = z.object({
  value: z.union([RuleValue, z.array(RuleValue)]),
  source: z.enum(['personal', 'default', 'guardrail']),
  belief: z.object({ id: z.string(), kind: RuleKind }).optional(),
});

export const AppliedResponse = z
  .object({
    agent: z.string(),
    project: z.string().optional(),
    values: z.record(z.string(), AppliedEntryResponse),
    clamps: z.array(ClampRecord),
    limitations: z.array(z.object({ part: z.string(), effect: z.string() })),
  })
  .meta({ id: 'AppliedMemory' });
