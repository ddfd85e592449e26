import * as z from 'zod';
import { Cursor, PageSize, SafeName } from '../../../http/api-schemas.ts';
import { scopedFailures } from '../../../http/common-responses.ts';
import { defineOperation, NoBody, NoParams, NoQuery } from '../../../http/operation.ts';
import { RuleValue } from '../../guardrails/public.ts';
import { BeliefStatus, RuleKind } from '../belief.schema.ts';
import { BELIEF_ID_PATTERN } from '../belief-record.ts';
import { RESERVED_SESSION_PREFIX } from '../beliefs-service.ts';
import { SessionEventInput } from '../session-event.schema.ts';
import {
  AppendedEventResponse,
  AppliedResponse,
  BeliefPage,
  BeliefResponse,
  InspectedBeliefResponse,
  SessionEventPage,
} from './learning.responses.ts';

const ENTRY = 'lambdas/capabilities/learning/learning.lambda.ts';

const failures = scopedFailures("Nothing of that id in the caller's scope");

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
  requiredScope: 'memory-hub/memory.write',
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
  requiredScope: 'memory-hub/memory.read',
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
  requiredScope: 'memory-hub/memory.read',
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
  requiredScope: 'memory-hub/memory.read',
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
  requiredScope: 'memory-hub/memory.read',
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
  requiredScope: 'memory-hub/memory.write',
  lambda: { entry: ENTRY, handler: 'correctBelief', access: 'write' },
  params: BeliefParams,
  query: NoQuery,
  body: BeliefCorrectionInput,
  requiresIfMatch: true,
  responses: {
    200: { description: 'The corrected belief', schema: BeliefResponse, headers: ['ETag'] },
    ...failures,
  },
});

export const forgetBelief = defineOperation({
  summary: 'Forget a belief (appends a tombstone revision)',
  tag: 'learning',
  routes: [{ operationId: 'forgetBelief', method: 'DELETE', path: '/v1/beliefs/{id}', project: false }],
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
  lambda: { entry: ENTRY, handler: 'forgetBelief', access: 'write' },
  params: BeliefParams,
  query: NoQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: { 204: { description: 'Forgotten' }, ...failures },
});

export const resetBeliefs = defineOperation({
  summary: "Forget every belief of a kind: the principal's own, or one agent's",
  tag: 'learning',
  routes: [{ operationId: 'resetBeliefs', method: 'POST', path: '/v1/beliefs/reset', project: false }],
  authenticated: true,
  requiredScope: 'memory-hub/memory.write',
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
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'getAppliedMemory', access: 'write' },
  params: NoParams,
  query: z.object({ agent: SafeName, project: SafeName.optional() }).strict(),
  body: NoBody,
  responses: { 200: { description: 'The applied view', schema: AppliedResponse }, ...failures },
});

/** In the order the OpenAPI document lists them. */
export const LEARNING_OPERATIONS = [
  appendSessionEvent,
  listSessionEvents,
  listBeliefs,
  getBelief,
  beliefHistory,
  correctBelief,
  forgetBelief,
  resetBeliefs,
  getAppliedMemory,
] as const;
