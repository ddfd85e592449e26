import { ValidationFailedError } from '../../kernel/errors/domain-error.ts';
import {
  type Belief,
  type BelievedValue,
  CandidateRule,
  compareValues,
  MAX_EVIDENCE_PER_VALUE,
  MAX_RECENT_CONFIRMATIONS,
  MAX_RECENT_REFUTATIONS,
  MAX_SESSIONS_PER_VALUE,
  MAX_VALUES_PER_BELIEF,
  RuleObservation,
  type RuleValue,
  type SessionSighting,
  sameValue,
  type TimedEvent,
} from './belief.schema.ts';
import { RuleMismatchError } from './learning.errors.ts';
import { DAY_MS, type LearningSettings, retentionHorizonDays } from './learning-settings.ts';
import { evaluateBelief } from './maturation-gate.ts';

/*
 * MERGE: fold one drafted candidate into the belief about its key. Pure: the caller reads the belief, merges,
 * evaluates and appends the result conditionally on the revision it read (and re-reads and re-merges on a
 * conflict).
 *
 * What the fold guarantees:
 * - Counts are sums and times are minima/maxima, so `support`, `refuted`, first/last seen and the declaration
 *   times do not depend on the order observations arrive in.
 * - Every kept list is "the newest N" in one total order (time descending, then id), after dropping
 *   observations older than the retention horizon before the belief's newest observation. Both are
 *   functions of the set of observations, so the lists do not depend on arrival order either.
 * - Folding an event already folded for that value changes nothing, as long as the belief still holds that
 *   event (in `recent`, `refutations` or `evidence`). An event older than everything a belief keeps cannot be
 *   told apart from a new late one and is counted again; replays come within hours of the original (the
 *   event append is itself idempotent), far inside what is kept.
 * - Of a key's values, at most `MAX_VALUES_PER_BELIEF` are kept. A new value beyond that evicts the least
 *   recently seen value that is not applied; that eviction is the one step that depends on arrival order.
 */

const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Times are kept as canonical UTC ISO strings (years 0000-9999), which order like the instants they name. */
const canonicalInstant = (at: string): string | undefined => {
  const time = Date.parse(at);
  if (Number.isNaN(time)) return undefined;
  const canonical = new Date(time).toISOString();
  return CANONICAL_INSTANT.test(canonical) ? canonical : undefined;
};

/** Candidates come from extractors, some of them model-based: check them before they touch a belief. */
const validated = (candidate: CandidateRule, observation: RuleObservation) => {
  const parsedCandidate = CandidateRule.safeParse(candidate);
  const parsedObservation = RuleObservation.safeParse(observation);
  const at = parsedObservation.success ? canonicalInstant(parsedObservation.data.at) : undefined;
  if (parsedCandidate.success && parsedObservation.success && at !== undefined)
    return { candidate: parsedCandidate.data, observation: parsedObservation.data, at };
  const issuesOf = (prefix: string, parsed: typeof parsedCandidate | typeof parsedObservation) =>
    parsed.success
      ? []
      : parsed.error.issues.map((issue) => ({ path: [prefix, ...issue.path].join('.'), message: issue.message }));
  const issues = [...issuesOf('candidate', parsedCandidate), ...issuesOf('observation', parsedObservation)];
  if (parsedObservation.success && at === undefined)
    issues.push({ path: 'observation.at', message: 'an instant between the years 0000 and 9999' });
  throw new ValidationFailedError('The candidate rule or its observation is invalid', issues);
};

const later = (a: string | undefined, b: string): string => (a === undefined || b > a ? b : a);
const earlier = (a: string | undefined, b: string): string => (a === undefined || b < a ? b : a);

/** Newest first; the same instant is ordered by id, so the order is total. */
const newestFirst = (a: TimedEvent, b: TimedEvent): number =>
  a.at !== b.at ? (a.at > b.at ? -1 : 1) : a.event < b.event ? -1 : a.event > b.event ? 1 : 0;

const sessionsNewestFirst = (a: SessionSighting, b: SessionSighting): number =>
  a.lastSeen !== b.lastSeen
    ? a.lastSeen > b.lastSeen
      ? -1
      : 1
    : a.session < b.session
      ? -1
      : a.session > b.session
        ? 1
        : 0;

const keepNewest = (entries: readonly TimedEvent[], entry: TimedEvent, max: number): TimedEvent[] =>
  [...entries, entry].sort(newestFirst).slice(0, max);

const sighted = (sessions: readonly SessionSighting[], session: string, at: string): SessionSighting[] => {
  const previous = sessions.find((sighting) => sighting.session === session);
  const others = sessions.filter((sighting) => sighting.session !== session);
  return [...others, { session, lastSeen: later(previous?.lastSeen, at) }]
    .sort(sessionsNewestFirst)
    .slice(0, MAX_SESSIONS_PER_VALUE);
};

/** Builds a value with its fields in one order and without absent optionals, so equal values serialize alike. */
const orderedValue = (fields: BelievedValue): BelievedValue => ({
  value: fields.value,
  status: fields.status,
  confidence: fields.confidence,
  support: fields.support,
  refuted: fields.refuted,
  ...(fields.firstSeen !== undefined && { firstSeen: fields.firstSeen }),
  ...(fields.lastSeen !== undefined && { lastSeen: fields.lastSeen }),
  ...(fields.lastRefuted !== undefined && { lastRefuted: fields.lastRefuted }),
  ...(fields.declaredAt !== undefined && { declaredAt: fields.declaredAt }),
  ...(fields.retractedAt !== undefined && { retractedAt: fields.retractedAt }),
  sessions: fields.sessions,
  evidence: fields.evidence,
  recent: fields.recent,
  refutations: fields.refutations,
});

const unseenValue = (value: RuleValue): BelievedValue => ({
  value,
  status: 'provisional',
  confidence: 0,
  support: 0,
  refuted: 0,
  sessions: [],
  evidence: [],
  recent: [],
  refutations: [],
});

const holdsEvent = (value: BelievedValue, eventId: string): boolean =>
  value.recent.some(({ event }) => event === eventId) ||
  value.refutations.some(({ event }) => event === eventId) ||
  value.evidence.some(({ event }) => event === eventId);

interface Sighting {
  readonly at: string;
  readonly event: string;
  readonly session: string;
}

const folded = (current: BelievedValue, candidate: CandidateRule, sighting: Sighting): BelievedValue => {
  const { at, event, session } = sighting;
  const declarative = candidate.basis === 'declarative';
  if (candidate.polarity === 'confirm')
    return orderedValue({
      ...current,
      support: current.support + 1,
      firstSeen: earlier(current.firstSeen, at),
      lastSeen: later(current.lastSeen, at),
      declaredAt: declarative ? later(current.declaredAt, at) : current.declaredAt,
      sessions: sighted(current.sessions, session, at),
      evidence: keepNewest(current.evidence, { at, event }, MAX_EVIDENCE_PER_VALUE),
      recent: keepNewest(current.recent, { at, event }, MAX_RECENT_CONFIRMATIONS),
    });
  return orderedValue({
    ...current,
    refuted: current.refuted + 1,
    lastRefuted: later(current.lastRefuted, at),
    retractedAt: declarative ? later(current.retractedAt, at) : current.retractedAt,
    refutations: keepNewest(current.refutations, { at, event }, MAX_RECENT_REFUTATIONS),
  });
};

/** The last confirming or refuting observation of a value. */
const lastSignal = (value: BelievedValue): string => {
  const signals = [value.lastSeen, value.lastRefuted].filter((at): at is string => at !== undefined);
  return signals.reduce<string>(later, '');
};

/**
 * Keeps at most `MAX_VALUES_PER_BELIEF` values, never dropping `arrived`: the first to go is a value that is
 * not applied, then the least recently seen, then the least supported.
 */
const withinValueCap = (values: BelievedValue[], arrived: BelievedValue): BelievedValue[] => {
  if (values.length <= MAX_VALUES_PER_BELIEF) return values;
  const [evicted] = values
    .filter((value) => value !== arrived)
    .sort(
      (a, b) =>
        Number(a.status === 'mature') - Number(b.status === 'mature') ||
        (lastSignal(a) < lastSignal(b) ? -1 : lastSignal(a) > lastSignal(b) ? 1 : 0) ||
        a.support - b.support ||
        compareValues(a.value, b.value),
    );
  return values.filter((value) => value !== evicted);
};

/** Drops kept observations older than the horizon before the belief's newest observation. */
const withinHorizon = (values: BelievedValue[], settings: LearningSettings): BelievedValue[] => {
  const newest = values.map(lastSignal).reduce<string>(later, '');
  if (newest === '') return values;
  const cutoff = new Date(Date.parse(newest) - retentionHorizonDays(settings) * DAY_MS).toISOString();
  return values.map((value) => {
    const recent = value.recent.filter(({ at }) => at >= cutoff);
    const refutations = value.refutations.filter(({ at }) => at >= cutoff);
    return recent.length === value.recent.length && refutations.length === value.refutations.length
      ? value
      : orderedValue({ ...value, recent, refutations });
  });
};

const assertSameRule = (belief: Belief, candidate: CandidateRule): void => {
  const fields = (['key', 'kind', 'cardinality', 'agent'] as const).filter(
    (field) => belief[field] !== candidate[field],
  );
  if (fields.length > 0) throw new RuleMismatchError(fields);
};

const newBelief = (candidate: CandidateRule, at: string): Belief => ({
  key: candidate.key,
  kind: candidate.kind,
  // what is applied rests on a declaration only once evaluated; nothing is applied yet
  basis: 'behavioral',
  cardinality: candidate.cardinality,
  ...(candidate.agent !== undefined && { agent: candidate.agent }),
  values: [],
  status: 'provisional',
  confidence: 0,
  statusChangedAt: at,
  superseded: [],
});

/**
 * Folds `candidate`, observed in `observation`, into `belief` (undefined: the key has no belief yet). The
 * result keeps the previous statuses; pass it through `evaluateBelief` (or call `mergeAndEvaluate`) before
 * storing it.
 *
 * @throws ValidationFailedError when the candidate or the observation is malformed.
 * @throws RuleMismatchError when the candidate is about another rule than the belief.
 */
export const mergeObservation = (
  belief: Belief | undefined,
  candidate: CandidateRule,
  observation: RuleObservation,
  settings: LearningSettings,
): Belief => {
  const checked = validated(candidate, observation);
  if (belief !== undefined) assertSameRule(belief, checked.candidate);
  const base = belief ?? newBelief(checked.candidate, checked.at);
  const existing = base.values.find(({ value }) => sameValue(value, checked.candidate.value));
  if (existing !== undefined && holdsEvent(existing, checked.observation.eventId)) return base;

  const sighting = { at: checked.at, event: checked.observation.eventId, session: checked.observation.session };
  const updated = folded(existing ?? unseenValue(checked.candidate.value), checked.candidate, sighting);
  const values =
    existing === undefined
      ? withinValueCap([...base.values, updated], updated)
      : base.values.map((value) => (value === existing ? updated : value));
  return { ...base, values: withinHorizon(values, settings).sort((a, b) => compareValues(a.value, b.value)) };
};

/** MERGE then SYNTHESIS for the touched rule: what every write of learned memory stores. */
export const mergeAndEvaluate = (
  belief: Belief | undefined,
  candidate: CandidateRule,
  observation: RuleObservation,
  now: Date,
  settings: LearningSettings,
): Belief => evaluateBelief(mergeObservation(belief, candidate, observation, settings), now, settings);
