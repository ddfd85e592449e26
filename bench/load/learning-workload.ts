/**
 * The learned-memory workload: principals spread over a few tenants record session events and read what their
 * agents may act on. An append is mostly a behavioural signal drawn from a small set of recurring keys and
 * values (so beliefs grow, compete and mature), sometimes a structured statement (a declarative fact, applied
 * at once) and now and then a free-text message (stored, nothing learned). Each principal favours its own keys,
 * values and agent (Zipf-like weights, rotated by principal) and moves to its next session every few events.
 *
 * Seeding gives every principal a handful of beliefs, most of them mature, and has each tenant's organisation
 * admin set two guardrails on keys the signals use, so the applied view clamps real values.
 */
import type { WorkloadOptions } from '../bench-options.ts';
import { seededRandom } from '../stats.ts';
import { forEachConcurrently } from './concurrently.ts';
import { type HttpClient, type HttpResponse, outcomeOf } from './http-client.ts';
import type { PrincipalIdentity } from './identities.ts';
import type { SeedResult, SessionWorkload } from './load-session.ts';
import type { Outcome } from './open-loop-driver.ts';

/** The API's operationIds, which are also the keys of the server's cost report. */
export const LEARNING_OPERATIONS = ['appendSessionEvent', 'getAppliedMemory'] as const;
export type LearningOperation = (typeof LEARNING_OPERATIONS)[number];

/** Share of requests that append a session event; the rest read the applied view. */
export const APPEND_SHARE = 0.5;
/** Share of appended events that are signals, and that are structured statements; the rest are messages. */
export const SIGNAL_SHARE = 0.8;
export const STATEMENT_SHARE = 0.15;

export const AGENTS = ['planner', 'coder', 'reviewer'] as const;
/** Sessions each principal rotates through, moving on after this many events in one. */
export const SESSIONS_PER_PRINCIPAL = 3;
export const EVENTS_PER_SESSION = 4;

type RuleValue = string | number | boolean;

interface RecurringKey {
  key: string;
  values: readonly RuleValue[];
}

/** What the signals are about: agent preferences, each with two or three competing values. */
export const SIGNAL_KEYS: readonly RecurringKey[] = [
  { key: 'response.length', values: ['short', 'medium', 'long'] },
  { key: 'response.tone', values: ['neutral', 'formal', 'casual'] },
  { key: 'response.format', values: ['bullets', 'prose'] },
  { key: 'response.max_items', values: [5, 10, 50] },
  { key: 'code.comments', values: ['minimal', 'thorough'] },
  { key: 'code.tests', values: [true, false] },
  { key: 'review.depth', values: ['quick', 'thorough', 'line-by-line'] },
  { key: 'explanations.detail', values: ['low', 'high'] },
];

/** What the structured statements declare: facts about the principal (profile, so no agent). */
const STATEMENT_KEYS: readonly RecurringKey[] = [
  { key: 'profile.timezone', values: ['Europe/Berlin', 'America/New_York', 'UTC'] },
  { key: 'profile.role', values: ['data engineer', 'tech lead', 'designer'] },
];

const MESSAGES = [
  'Can you summarise the open review comments before the stand-up?',
  'Let us pick this up again after the deploy has finished.',
  'That plan looks fine, go ahead with the first two steps.',
];

/** Set by each tenant's organisation admin before the phases: 'long' and 50 are clamped wherever believed. */
export const ORGANISATION_GUARDRAILS = {
  'response.length': { type: 'enum', allowed: ['short', 'medium'], default: 'medium' },
  'response.max_items': { type: 'range', min: 1, max: 20 },
} as const;

/** Figures read off the responses (`Outcome.observed`). */
export type LearningObservation = 'beliefsTouched' | 'matureBeliefs' | 'withheld' | 'appliedValues' | 'clamps';

interface Principal extends PrincipalIdentity {
  /** Rotates the favourite keys, values and agent, so principals differ. */
  index: number;
  events: number;
}

type SessionEvent = Record<string, unknown>;

export class LearningWorkload implements SessionWorkload<LearningOperation> {
  readonly operations = LEARNING_OPERATIONS;
  readonly principals: readonly Principal[];
  readonly #admins: readonly PrincipalIdentity[];
  readonly #random: () => number;

  constructor(
    identities: readonly PrincipalIdentity[],
    admins: readonly PrincipalIdentity[],
    options: WorkloadOptions,
    seedOffset = 0,
  ) {
    this.principals = identities.map((identity, index) => ({ ...identity, index, events: 0 }));
    this.#admins = admins;
    this.#random = seededRandom(options.seed + seedOffset);
  }

  /**
   * The organisation guardrails, then per principal (8 at a time, each principal's events in order): its two
   * favourite keys signalled three times over two sessions (mature), a third once (provisional), and a
   * declared time zone (mature at once).
   */
  async seed(client: HttpClient, concurrency = 8): Promise<SeedResult> {
    const failures: string[] = [];
    const check = (what: string, expected: number, response: HttpResponse) => {
      if (response.status !== expected) failures.push(`${what}: ${response.status} ${response.body.slice(0, 300)}`);
    };
    for (const admin of this.#admins)
      for (const [key, guardrail] of Object.entries(ORGANISATION_GUARDRAILS))
        check(
          `PUT /v1/guardrails/${key} (${admin.tenant})`,
          201,
          await client.send({
            method: 'PUT',
            path: `/v1/guardrails/${key}`,
            headers: { authorization: admin.authorization },
            body: guardrail,
          }),
        );
    let appends = 0;
    await forEachConcurrently(this.principals, concurrency, async (principal) => {
      const signalOfRank = (rank: number) =>
        this.#signal(principal, favourite(SIGNAL_KEYS.length, principal.index + rank), favourite);
      const [first, second, third] = [signalOfRank(0), signalOfRank(1), signalOfRank(2)];
      const events: [string, SessionEvent][] = [
        ['s0', first],
        ['s0', second],
        ['s0', first],
        ['s1', second],
        ['s1', first],
        ['s1', second],
        ['s1', third],
        ['s1', this.#statement(principal, favourite)],
      ];
      for (const [session, event] of events) {
        appends += 1;
        const response = await this.#send(client, principal, session, event);
        check(`POST /v1/sessions/${session}/events (${principal.sub})`, 201, response);
      }
    });
    if (failures.length > 0)
      throw new Error(
        `Seeding failed: ${failures.length} requests were refused; first: ${failures.slice(0, 3).join(' | ')}`,
      );
    return {
      requests: {
        appendSessionEvent: appends,
        putGuardrail: this.#admins.length * Object.keys(ORGANISATION_GUARDRAILS).length,
      },
      description:
        `${this.principals.length} principals, ${appends} seed events, ` +
        `${Object.keys(ORGANISATION_GUARDRAILS).length} guardrails in each of ${this.#admins.length} tenants`,
    };
  }

  issue(client: HttpClient): Promise<Outcome> {
    return this.issueOperation(client, this.#random() < APPEND_SHARE ? 'appendSessionEvent' : 'getAppliedMemory');
  }

  issueOperation(client: HttpClient, operation: LearningOperation): Promise<Outcome> {
    const principal = this.#pick(this.principals);
    return operation === 'appendSessionEvent' ? this.#append(client, principal) : this.#applied(client, principal);
  }

  /** The principal's next event, in its current session. */
  async #append(client: HttpClient, principal: Principal): Promise<Outcome> {
    const session = `s${Math.floor(principal.events / EVENTS_PER_SESSION) % SESSIONS_PER_PRINCIPAL}`;
    const response = await this.#send(client, principal, session, this.#nextEvent(principal));
    const body = parsed<{ beliefs?: { status?: string }[]; withheld?: unknown[] }>(response, 201);
    if (!body?.beliefs || !body.withheld) return outcomeOf('appendSessionEvent', response);
    return {
      ...outcomeOf('appendSessionEvent', response),
      observed: {
        beliefsTouched: body.beliefs.length,
        matureBeliefs: body.beliefs.filter((belief) => belief.status === 'mature').length,
        withheld: body.withheld.length,
      } satisfies Partial<Record<LearningObservation, number>>,
    };
  }

  async #applied(client: HttpClient, principal: Principal): Promise<Outcome> {
    const agent = AGENTS[this.#zipf(AGENTS.length, principal.index)];
    const response = await client.send({
      method: 'GET',
      path: `/v1/applied?agent=${agent}`,
      headers: { authorization: principal.authorization },
    });
    const body = parsed<{ values?: Record<string, unknown>; clamps?: unknown[] }>(response, 200);
    if (!body?.values || !body.clamps) return outcomeOf('getAppliedMemory', response);
    return {
      ...outcomeOf('getAppliedMemory', response),
      observed: {
        appliedValues: Object.keys(body.values).length,
        clamps: body.clamps.length,
      } satisfies Partial<Record<LearningObservation, number>>,
    };
  }

  #send(client: HttpClient, principal: Principal, session: string, event: SessionEvent): Promise<HttpResponse> {
    principal.events += 1;
    return client.send({
      method: 'POST',
      path: `/v1/sessions/${session}/events`,
      headers: { authorization: principal.authorization },
      body: event,
    });
  }

  #nextEvent(principal: Principal): SessionEvent {
    const roll = this.#random();
    const drawn: Choose = (count, offset) => this.#zipf(count, offset);
    if (roll < SIGNAL_SHARE) return this.#signal(principal, drawn(SIGNAL_KEYS.length, principal.index), drawn);
    if (roll < SIGNAL_SHARE + STATEMENT_SHARE) return this.#statement(principal, drawn);
    return {
      type: 'message',
      agent: AGENTS[this.#zipf(AGENTS.length, principal.index)],
      role: 'user',
      text: this.#pick(MESSAGES),
    };
  }

  /** A behavioural preference for the signal key at `keyIndex`, its value and agent chosen by `choose`. */
  #signal(principal: Principal, keyIndex: number, choose: Choose): SessionEvent {
    const { key, values } = SIGNAL_KEYS[keyIndex] as RecurringKey;
    return {
      type: 'signal',
      key,
      value: values[choose(values.length, principal.index + keyIndex)],
      kind: 'preference',
      basis: 'behavioral',
      cardinality: 'single',
      agent: AGENTS[choose(AGENTS.length, principal.index)],
    };
  }

  /** A declarative profile fact with its key and value (the text is kept, not read); the time zone is commonest. */
  #statement(principal: Principal, choose: Choose): SessionEvent {
    const keyIndex = choose(STATEMENT_KEYS.length, 0);
    const { key, values } = STATEMENT_KEYS[keyIndex] as RecurringKey;
    const value = values[choose(values.length, principal.index + keyIndex)];
    return { type: 'statement', text: `My ${key.replace('profile.', '')} is ${value}.`, key, value, kind: 'profile' };
  }

  /**
   * Zipf-like: rank r is drawn with weight 1/(r+1) and is index (r + offset) mod `count`, so each principal has
   * its own favourite (rank 0), a runner-up and a tail.
   */
  #zipf(count: number, offset: number): number {
    let roll = this.#random() * harmonic(count);
    for (let rank = 0; rank < count; rank++) {
      roll -= 1 / (rank + 1);
      if (roll < 0) return (rank + offset) % count;
    }
    return offset % count;
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }
}

/** Chooses an index below `count`; `offset` rotates the ranking, so each principal has its own favourite. */
type Choose = (count: number, offset: number) => number;

/** Always the favourite: what seeding repeats until it matures. */
const favourite: Choose = (count, offset) => offset % count;

const harmonic = (count: number): number => {
  let total = 0;
  for (let rank = 1; rank <= count; rank++) total += 1 / rank;
  return total;
};

/** The JSON body of a response with the expected status; undefined otherwise. */
const parsed = <T>(response: HttpResponse, status: number): T | undefined => {
  if (response.status !== status) return undefined;
  try {
    return JSON.parse(response.body) as T;
  } catch {
    return undefined;
  }
};
