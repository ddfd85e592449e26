import * as z from 'zod';
import { SAFE_TOKEN } from '../../kernel/identity/verified-claims.ts';
import { RuleKey, RuleValue } from '../guardrails/public.ts';

// A belief's keys and values are what guardrails bound: the vocabulary is theirs.
export { RULE_KEY_PATTERN, RULE_STRING_MAX_LENGTH, RuleKey, RuleValue } from '../guardrails/public.ts';

/*
 * Learned memory, as drafted from one event (`CandidateRule`) and as stored per namespace and rule key
 * (`Belief`). A belief stays small however many events teach it: every list below is bounded, and the
 * merge keeps the newest entries (see `merge-rule.ts`). Every list full, a value takes about 2.7 KB of JSON
 * with ULID event ids and short session ids; a belief holds at most `MAX_VALUES_PER_BELIEF` values, so about
 * 27 KB at worst with 200-character values — and one value, well under 1 KB, is the common case. The bounds also cap the gate's
 * settings: `learning.minOccurrences` counts kept confirmations and `learning.minDistinctSessions` kept
 * sessions, so neither may exceed what a value keeps (the configuration schema holds them to it).
 */

/** Values of one key a belief keeps; past it, the least recently seen value that is not applied goes. */
export const MAX_VALUES_PER_BELIEF = 8;
/** Newest confirming observations kept per value, for windowed counts and recency weighting. */
export const MAX_RECENT_CONFIRMATIONS = 16;
/** Newest refuting observations kept per value. */
export const MAX_RECENT_REFUTATIONS = 8;
/** Sessions (with the last time each confirmed the value) kept per value. */
export const MAX_SESSIONS_PER_VALUE = 8;
/** Event ids of the newest confirming observations kept per value, to show why it is believed. */
export const MAX_EVIDENCE_PER_VALUE = 10;
/** Supersessions of a single-valued key kept, newest first. */
export const MAX_SUPERSESSIONS = 10;

/** What a rule is about: who the principal is, what they prefer, how they (or an agent) work. */
export const RuleKind = z.enum(['profile', 'preference', 'pattern']);
export type RuleKind = z.infer<typeof RuleKind>;

/** `declarative`: the principal said it about themselves; `behavioral`: inferred from what happened. */
export const RuleBasis = z.enum(['declarative', 'behavioral']);
export type RuleBasis = z.infer<typeof RuleBasis>;

/** `single`: one value at a time, a different value competes; `multi`: values coexist. */
export const RuleCardinality = z.enum(['single', 'multi']);
export type RuleCardinality = z.infer<typeof RuleCardinality>;

/** Whether the event supports the value or speaks against it. */
export const RulePolarity = z.enum(['confirm', 'refute']);
export type RulePolarity = z.infer<typeof RulePolarity>;

const SafeId = z.string().regex(SAFE_TOKEN, 'an id is 1-64 characters of A-Z, a-z, 0-9, _ or -');
const AgentName = z.string().regex(SAFE_TOKEN, 'an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -');
const Instant = z.iso.datetime({ message: 'an instant is an ISO 8601 UTC date-time' });

/** DRAFT: what one event suggests about one rule key. Extractors produce these; the merge folds them. */
export const CandidateRule = z
  .object({
    key: RuleKey,
    value: RuleValue,
    kind: RuleKind,
    basis: RuleBasis,
    cardinality: RuleCardinality,
    polarity: RulePolarity,
    agent: AgentName.optional(),
  })
  .strict();
export type CandidateRule = z.infer<typeof CandidateRule>;

/** Where and when a candidate was observed: the event it came from, its session and its time (any offset). */
export const RuleObservation = z
  .object({
    eventId: SafeId,
    session: SafeId,
    at: z.iso.datetime({ offset: true, message: 'an instant is an ISO 8601 date-time' }),
  })
  .strict();
export type RuleObservation = z.infer<typeof RuleObservation>;

/** One observation kept for counting and weighting. */
export const TimedEvent = z.object({ at: Instant, event: SafeId }).strict();
export type TimedEvent = z.infer<typeof TimedEvent>;

/** A session that confirmed a value, and the last time it did. */
export const SessionSighting = z.object({ session: SafeId, lastSeen: Instant }).strict();
export type SessionSighting = z.infer<typeof SessionSighting>;

/**
 * - `mature`: applied;
 * - `superseded`: would be mature on its own evidence, but a competing value of the single-valued key wins;
 * - `provisional`: stored, not applied;
 * - `expired`: no confirming signal within `expireAfterDays`.
 */
export const BelievedValueStatus = z.enum(['provisional', 'mature', 'superseded', 'expired']);
export type BelievedValueStatus = z.infer<typeof BelievedValueStatus>;

export const BeliefStatus = z.enum(['provisional', 'mature', 'expired']);
export type BeliefStatus = z.infer<typeof BeliefStatus>;

const Count = z.number().int().min(0);
const Confidence = z.number().min(0).max(1);

/**
 * One value of a key with the evidence about it. Counts are all-time; the lists keep the newest entries
 * (times descending, ties by id). `firstSeen`/`lastSeen` are those of confirming observations; a value only
 * ever refuted has neither. `declaredAt`/`retractedAt` are the latest declarative confirmation/refutation.
 */
export const BelievedValue = z
  .object({
    value: RuleValue,
    status: BelievedValueStatus,
    confidence: Confidence,
    support: Count,
    refuted: Count,
    firstSeen: Instant.optional(),
    lastSeen: Instant.optional(),
    lastRefuted: Instant.optional(),
    declaredAt: Instant.optional(),
    retractedAt: Instant.optional(),
    sessions: z.array(SessionSighting).max(MAX_SESSIONS_PER_VALUE),
    evidence: z.array(TimedEvent).max(MAX_EVIDENCE_PER_VALUE),
    recent: z.array(TimedEvent).max(MAX_RECENT_CONFIRMATIONS),
    refutations: z.array(TimedEvent).max(MAX_RECENT_REFUTATIONS),
  })
  .strict()
  .refine((value) => value.support > 0 === (value.lastSeen !== undefined && value.firstSeen !== undefined), {
    message: 'firstSeen and lastSeen are present exactly when the value has support',
  });
export type BelievedValue = z.infer<typeof BelievedValue>;

/** A single-valued key's applied value gave way to another value at `at`. */
export const Supersession = z.object({ value: RuleValue, by: RuleValue, at: Instant }).strict();
export type Supersession = z.infer<typeof Supersession>;

/**
 * What is believed about one rule key in one namespace. `status`, `appliedValue`, `confidence`, `basis` and
 * each value's `status`/`confidence` are computed by `evaluateBelief`; `appliedValue` is one value for a
 * single-valued key and the (non-empty, ordered) list of applied values for a multi-valued one, absent when
 * nothing is applied. `basis` is `declarative` when what is applied rests on the principal's own statement.
 */
export const Belief = z
  .object({
    key: RuleKey,
    kind: RuleKind,
    basis: RuleBasis,
    cardinality: RuleCardinality,
    agent: AgentName.optional(),
    values: z.array(BelievedValue).max(MAX_VALUES_PER_BELIEF),
    status: BeliefStatus,
    appliedValue: z.union([RuleValue, z.array(RuleValue).min(1).max(MAX_VALUES_PER_BELIEF)]).optional(),
    confidence: Confidence,
    statusChangedAt: Instant,
    superseded: z.array(Supersession).max(MAX_SUPERSESSIONS),
    /**
     * Set when the principal forgot an earlier belief about this rule: the tombstone's revision and time.
     * What was learned before it is no longer shown (history starts after it) and an observation made before
     * it (a replayed request) teaches nothing.
     */
    forgotten: z
      .object({ revision: z.number().int().min(1), at: Instant })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((belief, context) => {
    const identities = belief.values.map(({ value }) => valueIdentity(value));
    if (new Set(identities).size !== identities.length)
      context.addIssue({ code: 'custom', path: ['values'], message: 'each value appears once' });
    if (belief.appliedValue !== undefined && Array.isArray(belief.appliedValue) !== (belief.cardinality === 'multi'))
      context.addIssue({
        code: 'custom',
        path: ['appliedValue'],
        message: 'a multi-valued key applies a list, a single-valued key one value',
      });
    if ((belief.appliedValue !== undefined) !== (belief.status === 'mature'))
      context.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'a belief is mature exactly when it applies a value',
      });
  });
export type Belief = z.infer<typeof Belief>;

const TYPE_RANK = { boolean: 0, number: 1, string: 2 } as const;

/** Equality of rule values: same type and same value (`1`, `'1'` and `true` are three values). */
export const sameValue = (a: RuleValue, b: RuleValue): boolean => a === b;

/** A string that identifies a value, type included. */
export const valueIdentity = (value: RuleValue): string => `${typeof value}:${String(value)}`;

/** The canonical order of values: booleans, then numbers, then strings; each in its natural order. */
export const compareValues = (a: RuleValue, b: RuleValue): number => {
  const byType = TYPE_RANK[typeof a as keyof typeof TYPE_RANK] - TYPE_RANK[typeof b as keyof typeof TYPE_RANK];
  if (byType !== 0) return byType;
  if (a === b) return 0;
  return a < b ? -1 : 1;
};
