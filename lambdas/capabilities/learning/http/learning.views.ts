import type * as z from 'zod';
import { etagOf } from '../../../http/entity-tags.ts';
import type { ClampRecord, RuleValue } from '../../guardrails/public.ts';
import type { AppliedMemory } from '../applied-memory-service.ts';
import type { BeliefView, InspectedBelief, WithheldCandidate } from '../beliefs-service.ts';
import type { SessionEventInput } from '../session-event.schema.ts';
import type { AppendedEvent, SessionEventView } from '../session-events-service.ts';
import type {
  AppendedEventResponse,
  AppliedResponse,
  BeliefResponse,
  InspectedBeliefResponse,
  SessionEventResponse,
} from './learning.responses.ts';

/* From what the services return to what the operations answer: ids, values and timestamps, nothing else. */

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
    etag: etagOf(view.id, view.revision),
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
