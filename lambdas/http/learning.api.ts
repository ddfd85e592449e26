import { z } from 'zod';
import type { AppliedMemory } from '../core/guardrails/applied-memory-service.ts';
import { ClampRecord } from '../core/guardrails/applied-view.schema.ts';
import {
  BeliefStatus,
  BelievedValueStatus,
  RuleBasis,
  RuleCardinality,
  RuleKind,
  RuleValue,
} from '../core/learning/belief.schema.ts';
import { BELIEF_ID_PATTERN } from '../core/learning/belief-record.ts';
import {
  type BeliefView,
  type InspectedBelief,
  RESERVED_SESSION_PREFIX,
  type WithheldCandidate,
} from '../core/learning/beliefs-service.ts';
import { SessionEventInput } from '../core/learning/session-event.schema.ts';
import type { AppendedEvent, SessionEventView } from '../core/learning/session-events-service.ts';
import { Cursor, PageSize, SafeName } from './api-schemas.ts';
import { BODY_TOO_LARGE, IDEMPOTENCY_KEY_REUSED, IF_MATCH_FAILURES, scopedFailures } from './common-responses.ts';
import { defineOperation, NoBody, NoParams, NoQuery } from './operation.ts';

const ENTRY = 'lambdas/handlers/learning.lambda.ts';

const failures = scopedFailures("Nothing of that id in the caller's scope");

// ---------------------------------------------------------------------------------------------------------
// Response shapes

const BelievedValueResponse = z
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

const ValueAssessmentResponse = z.object({
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

const BeliefPage = z
  .object({ items: z.array(BeliefResponse), nextCursor: z.string().optional() })
  .meta({ id: 'BeliefPage' });

const WithheldResponse = z
  .object({ key: z.string(), kind: RuleKind, reasons: z.array(z.string()) })
  .meta({ id: 'WithheldCandidate', description: 'Suggested by the event but not learned; reasons never echo it' });

const SessionEventResponse = z
  .object({
    id: z.string(),
    session: z.string(),
    event: SessionEventInput,
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'SessionEvent' });

const AppendedEventResponse = z
  .object({
    event: SessionEventResponse,
    beliefs: z.array(BeliefResponse),
    withheld: z.array(WithheldResponse),
  })
  .meta({ id: 'AppendedSessionEvent' });

const SessionEventPage = z
  .object({ items: z.array(SessionEventResponse), nextCursor: z.string().optional() })
  .meta({ id: 'SessionEventPage' });

const AppliedEntryResponse = z.object({
  value: z.union([RuleValue, z.array(RuleValue)]),
  source: z.enum(['personal', 'default', 'guardrail']),
  belief: z.object({ id: z.string(), kind: RuleKind }).optional(),
});

const AppliedResponse = z
  .object({
    agent: z.string(),
    project: z.string().optional(),
    values: z.record(z.string(), AppliedEntryResponse),
    clamps: z.array(ClampRecord),
    limitations: z.array(z.object({ part: z.string(), effect: z.string() })),
  })
  .meta({ id: 'AppliedMemory' });

// ---------------------------------------------------------------------------------------------------------
// Requests

const SessionParams = z
  .object({
    sessionId: SafeName.refine(
      (session) => !session.startsWith(RESERVED_SESSION_PREFIX),
      `session ids starting with ${RESERVED_SESSION_PREFIX} are the service's own`,
    ),
  })
  .strict();
const PageQuery = z.object({ limit: PageSize.optional(), cursor: Cursor.optional() }).strict();
const BeliefParams = z.object({ id: z.string().regex(BELIEF_ID_PATTERN, 'not a belief id') }).strict();

export const BeliefCorrectionInput = z
  .object({
    value: RuleValue.optional().meta({ description: 'The value to believe: declarative, applied at once' }),
    retract: RuleValue.optional().meta({ description: 'A value to stop believing' }),
  })
  .strict()
  .refine((body) => body.value !== undefined || body.retract !== undefined, 'give value, retract or both');

export const BeliefResetInput = z
  .object({
    kind: RuleKind,
    agent: SafeName.optional().meta({ description: "Reset this agent's beliefs; without it, the principal's own" }),
  })
  .strict();

// ---------------------------------------------------------------------------------------------------------
// Operations

export const appendSessionEvent = defineOperation({
  summary:
    'Record a session event; learned memory it teaches is in the response (a replay with the same Idempotency-Key shows the beliefs as they stand now)',
  tag: 'learning',
  routes: [
    { operationId: 'appendSessionEvent', method: 'POST', path: '/v1/sessions/{sessionId}/events', project: false },
  ],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'appendSessionEvent', access: 'write' },
  params: SessionParams,
  query: NoQuery,
  body: SessionEventInput,
  idempotent: true,
  responses: {
    201: {
      description: 'Stored; `beliefs` are the beliefs it touched, as they stand now',
      schema: AppendedEventResponse,
      headers: ['Idempotent-Replayed'],
    },
    ...IDEMPOTENCY_KEY_REUSED,
    ...BODY_TOO_LARGE,
    ...failures,
  },
});

export const listSessionEvents = defineOperation({
  summary: "List a session's events, newest first",
  tag: 'learning',
  routes: [
    { operationId: 'listSessionEvents', method: 'GET', path: '/v1/sessions/{sessionId}/events', project: false },
  ],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'listSessionEvents', access: 'read' },
  params: SessionParams,
  query: PageQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of events', schema: SessionEventPage }, ...failures },
});

export const listBeliefs = defineOperation({
  summary: 'List what has been learned about the caller',
  tag: 'learning',
  routes: [{ operationId: 'listBeliefs', method: 'GET', path: '/v1/beliefs', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'listBeliefs', access: 'read' },
  params: NoParams,
  query: PageQuery.extend({
    kind: RuleKind.optional(),
    agent: SafeName.optional().meta({
      description: "An agent's own beliefs; without it, the beliefs about the principal at large",
    }),
    status: BeliefStatus.optional(),
  }).strict(),
  body: NoBody,
  responses: { 200: { description: 'A page of beliefs', schema: BeliefPage }, ...failures },
});

export const getBelief = defineOperation({
  summary: 'Inspect a belief: what is believed, why, whether it is applied and how guardrails treat it',
  tag: 'learning',
  routes: [{ operationId: 'getBelief', method: 'GET', path: '/v1/beliefs/{id}', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'getBelief', access: 'read' },
  params: BeliefParams,
  query: z.object({ project: SafeName.optional() }).strict(),
  body: NoBody,
  responses: {
    200: { description: 'The belief', schema: InspectedBeliefResponse, headers: ['ETag'] },
    ...failures,
  },
});

export const beliefHistory = defineOperation({
  summary: 'List the revisions of a belief, oldest first',
  tag: 'learning',
  routes: [{ operationId: 'listBeliefHistory', method: 'GET', path: '/v1/beliefs/{id}/history', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'listBeliefHistory', access: 'read' },
  params: BeliefParams,
  query: PageQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of revisions', schema: BeliefPage }, ...failures },
});

export const correctBelief = defineOperation({
  summary: 'Correct a belief: the principal says what is true (applied at once) or takes a value back',
  tag: 'learning',
  routes: [{ operationId: 'correctBelief', method: 'PATCH', path: '/v1/beliefs/{id}', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'correctBelief', access: 'write' },
  params: BeliefParams,
  query: NoQuery,
  body: BeliefCorrectionInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The corrected belief', schema: BeliefResponse, headers: ['ETag'] },
    ...BODY_TOO_LARGE,
    ...IF_MATCH_FAILURES,
    ...failures,
  },
});

export const forgetBelief = defineOperation({
  summary: 'Forget a belief (appends a tombstone revision)',
  tag: 'learning',
  routes: [{ operationId: 'forgetBelief', method: 'DELETE', path: '/v1/beliefs/{id}', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'forgetBelief', access: 'write' },
  params: BeliefParams,
  query: NoQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: { 204: { description: 'Forgotten' }, ...IF_MATCH_FAILURES, ...failures },
});

export const resetBeliefs = defineOperation({
  summary: "Forget every belief of a kind: the principal's own, or one agent's",
  tag: 'learning',
  routes: [{ operationId: 'resetBeliefs', method: 'POST', path: '/v1/beliefs/reset', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'resetBeliefs', access: 'write' },
  params: NoParams,
  query: NoQuery,
  body: BeliefResetInput,
  responses: {
    200: { description: 'How many beliefs were forgotten', schema: z.object({ reset: z.number().int() }) },
    ...failures,
  },
});

export const getAppliedMemory = defineOperation({
  summary: "What an agent may act on: the principal's mature beliefs and shared defaults, clamped by guardrails",
  tag: 'learning',
  routes: [{ operationId: 'getAppliedMemory', method: 'GET', path: '/v1/applied', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'getAppliedMemory', access: 'write' },
  params: NoParams,
  query: z.object({ agent: SafeName, project: SafeName.optional() }).strict(),
  body: NoBody,
  responses: { 200: { description: 'The applied view', schema: AppliedResponse }, ...failures },
});

// ---------------------------------------------------------------------------------------------------------
// Views

export const toBeliefResponse = (view: BeliefView): z.input<typeof BeliefResponse> => {
  const { belief } = view;
  return {
    id: view.id,
    key: belief.key,
    kind: belief.kind,
    ...(belief.agent !== undefined && { agent: belief.agent }),
    cardinality: belief.cardinality,
    basis: belief.basis,
    status: belief.status,
    applied: belief.appliedValue !== undefined && belief.kind !== 'pattern',
    ...(belief.appliedValue !== undefined && { appliedValue: belief.appliedValue }),
    confidence: belief.confidence,
    statusChangedAt: belief.statusChangedAt,
    values: belief.values.map((entry) => ({
      value: entry.value,
      status: entry.status,
      confidence: entry.confidence,
      support: entry.support,
      refuted: entry.refuted,
      sessions: entry.sessions.length,
      ...(entry.firstSeen !== undefined && { firstSeen: entry.firstSeen }),
      ...(entry.lastSeen !== undefined && { lastSeen: entry.lastSeen }),
      ...(entry.lastRefuted !== undefined && { lastRefuted: entry.lastRefuted }),
      ...(entry.declaredAt !== undefined && { declaredAt: entry.declaredAt }),
      ...(entry.retractedAt !== undefined && { retractedAt: entry.retractedAt }),
      evidence: entry.evidence.map(({ event }) => event),
    })),
    superseded: belief.superseded,
    revision: view.revision,
    etag: view.etag,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
};

export const toInspectedBeliefResponse = (
  view: InspectedBelief,
  clamps: readonly ClampRecord[],
): z.input<typeof InspectedBeliefResponse> => ({
  ...toBeliefResponse(view),
  why: view.assessments.map((assessment) => ({
    value: assessment.value,
    confirmationsInWindow: assessment.confirmationsInWindow,
    sessionsInWindow: assessment.sessionsInWindow,
    netSupport: Math.round(assessment.netSupport * 1000) / 1000,
    fresh: assessment.fresh,
    declared: assessment.declared,
    recurs: assessment.recurs,
    retracted: assessment.retracted,
    expired: assessment.expired,
  })),
  clamps: [...clamps],
});

const toWithheldResponse = (withheld: WithheldCandidate) => ({
  key: withheld.key,
  kind: withheld.kind,
  reasons: [...withheld.reasons],
});

export const toSessionEventResponse = (view: SessionEventView): z.input<typeof SessionEventResponse> => ({
  id: view.id,
  session: view.owner.type === 'principal' ? (view.owner.session ?? '') : '',
  event: view.content as SessionEventInput,
  createdAt: view.createdAt,
  expiresAt: view.expiresAt,
});

export const toAppendedEventResponse = (appended: AppendedEvent): z.input<typeof AppendedEventResponse> => ({
  event: toSessionEventResponse(appended.event),
  beliefs: appended.beliefs.map(toBeliefResponse),
  withheld: appended.withheld.map(toWithheldResponse),
});

export const toAppliedResponse = (
  request: { agent: string; project?: string | undefined },
  applied: AppliedMemory,
): z.input<typeof AppliedResponse> => ({
  agent: request.agent,
  ...(request.project !== undefined && { project: request.project }),
  values: Object.fromEntries(
    Object.entries(applied.values).map(([key, entry]) => [
      key,
      {
        value: Array.isArray(entry.value) ? [...entry.value] : (entry.value as RuleValue),
        source: entry.source,
        ...(entry.belief && { belief: entry.belief }),
      },
    ]),
  ),
  clamps: [...applied.clamps],
  limitations: [...applied.limitations],
});
