import { createHash } from 'node:crypto';
import { SAFE_TOKEN } from '../../kernel/identity/verified-claims.ts';
import { defineRecordKind, type RecordKind } from '../../kernel/namespaces/record-kind.ts';
import { type Belief, RuleKind } from './belief.schema.ts';
import { DAY_MS, type LearningSettings } from './learning-settings.ts';

/*
 * How a belief is kept as a record: one record per namespace and rule key, its content the `Belief`, each
 * merge, correction or synthesis one more revision. The namespace is the kind's, narrowed to the agent when
 * the belief is an agent's (`scope.namespace(kind, { agent })`), so one agent's preferences are not even
 * addressable from another's.
 *
 * The record id is derived from the rule, so that two first merges of the same key race for revision 1 of
 * the same record and exactly one wins (the other re-reads and merges again). It names the kind and the
 * agent, which is how `GET /v1/beliefs/{id}` finds the namespace, and a digest of the key rather than the
 * key itself: a key such as `diet.allergy` says something about a person and stays out of storage keys,
 * events and logs.
 */

/** The record kind of each rule kind: a namespace of beliefs per kind, narrowed to an agent or not. */
export const BELIEF_KINDS: Readonly<Record<RuleKind, RecordKind>> = Object.freeze({
  profile: defineRecordKind({ name: 'profile', searchable: true }),
  preference: defineRecordKind({ name: 'preference', searchable: true }),
  pattern: defineRecordKind({ name: 'pattern', searchable: true }),
});

const KEY_DIGEST_LENGTH = 22;
const DIGEST = /^[A-Za-z0-9_-]{22}$/;

/** What a belief id says: where the belief lives, not what it is about. */
export interface BeliefAddress {
  readonly kind: RuleKind;
  readonly agent?: string | undefined;
}

const digestOf = (key: string): string =>
  createHash('sha256').update(`memory-hub/belief-key/${key}`).digest('base64url').slice(0, KEY_DIGEST_LENGTH);

/** `{kind}.{digest}` for a belief about the principal at large, `{kind}.{agent}.{digest}` for an agent's. */
export const beliefIdOf = (rule: { kind: RuleKind; agent?: string | undefined; key: string }): string =>
  rule.agent === undefined ? `${rule.kind}.${digestOf(rule.key)}` : `${rule.kind}.${rule.agent}.${digestOf(rule.key)}`;

/** The kind and agent a belief id names, or undefined when it is not a belief id (callers answer 404). */
export const parseBeliefId = (id: string): BeliefAddress | undefined => {
  const parts = id.split('.');
  const kind = RuleKind.safeParse(parts[0]);
  if (!kind.success) return undefined;
  if (parts.length === 2 && DIGEST.test(parts[1] ?? '')) return { kind: kind.data };
  if (parts.length === 3 && SAFE_TOKEN.test(parts[1] ?? '') && DIGEST.test(parts[2] ?? ''))
    return { kind: kind.data, agent: parts[1] };
  return undefined;
};

export const BELIEF_ID_PATTERN = /^(profile|preference|pattern)(\.[A-Za-z0-9_-]{1,64})?\.[A-Za-z0-9_-]{22}$/;

/**
 * A belief record outlives its last revision by twice the expiry horizon: an expired belief stays
 * inspectable (status `expired`) for a while before the retention sweep removes it.
 */
export const beliefExpiresAt = (updatedAt: Date, settings: LearningSettings): string =>
  new Date(updatedAt.getTime() + 2 * settings.expireAfterDays * DAY_MS).toISOString();

/** Provenance of a belief revision: the newest evidence event ids of all its values, newest first, at most 50. */
export const sourceEventIdsOf = (belief: Belief): string[] =>
  belief.values
    .flatMap((value) => value.evidence)
    .sort((a, b) => (a.at === b.at ? (a.event < b.event ? -1 : 1) : a.at > b.at ? -1 : 1))
    .map(({ event }) => event)
    .filter((event, index, all) => all.indexOf(event) === index)
    .slice(0, 50);
