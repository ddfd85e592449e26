import * as z from 'zod';
import { SAFE_TOKEN } from '../../kernel/identity/verified-claims.ts';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import { RuleBasis, RuleCardinality, RuleKey, RuleKind, RulePolarity, RuleValue } from './belief.schema.ts';

/*
 * What an agent records about a session (`POST /v1/sessions/{sessionId}/events`): short-term memory, stored
 * encrypted with a TTL, and the input of the DRAFT extractors. Every message below can reach an API caller as
 * a 422 issue, so each says what a valid value looks like; no message echoes the value it refused.
 */

/**
 * Short-term memory: a session's events, written once each and kept until they expire. They may hold what
 * the principal said, so they are never audited one by one; what they teach is audited where it lands.
 */
export const SESSION_EVENTS = defineRecordKind({ name: 'session-events', journal: true, audited: false });

/** The longest text each field takes. An event is a record of a session, not a document store. */
export const SESSION_EVENT_TEXT_MAX_LENGTH = {
  /** A turn of the conversation. */
  message: 16_000,
  /** What the principal says about themselves. */
  statement: 4_000,
  /** A correction's note and a feedback's comment. */
  remark: 2_000,
  /** A reference to an output and the name of a task. */
  reference: 256,
} as const;

/** Attributes an outcome carries; enough to describe a task, small enough to keep an event bounded. */
export const MAX_OUTCOME_ATTRIBUTES = 32;

export const SessionEventType = z.enum(['message', 'statement', 'correction', 'feedback', 'outcome', 'signal']);
export type SessionEventType = z.infer<typeof SessionEventType>;

export const MessageRole = z.enum(['user', 'agent', 'system', 'tool'], {
  error: 'role is user, agent, system or tool',
});
export type MessageRole = z.infer<typeof MessageRole>;

export const FeedbackRating = z.enum(['positive', 'negative'], { error: 'rating is positive or negative' });
export type FeedbackRating = z.infer<typeof FeedbackRating>;

export const OutcomeResult = z.enum(['success', 'failure', 'partial'], {
  error: 'result is success, failure or partial',
});
export type OutcomeResult = z.infer<typeof OutcomeResult>;

/** The same rule as a belief's agent: the agent narrows a namespace, so it is a safe token. */
const AgentName = z.string().regex(SAFE_TOKEN, 'an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -');

const boundedText = (field: string, max: number) =>
  z
    .string({ error: `${field} is text` })
    .min(1, `${field} must not be empty`)
    .max(max, `${field} is at most ${max} characters`)
    // empty text already has its issue
    .refine((text) => text.length === 0 || text.trim().length > 0, `${field} must not be blank`);

const PROFILE_TAKES_NO_AGENT = 'a profile fact is about the principal; agent applies to preferences and patterns';

/** A profile fact describes the principal whichever agent hears it, so it cannot be narrowed to one agent. */
const refuseAgentOnProfile = (rule: { kind: RuleKind; agent?: string | undefined }, context: z.RefinementCtx) => {
  if (rule.kind === 'profile' && rule.agent !== undefined)
    context.addIssue({ code: 'custom', path: ['agent'], message: PROFILE_TAKES_NO_AGENT });
};

/** A turn of the conversation. Only the asynchronous, model-based strategies learn from it. */
export const MessageEvent = z
  .object({
    type: z.literal('message'),
    agent: AgentName.optional(),
    role: MessageRole,
    text: boundedText('text', SESSION_EVENT_TEXT_MAX_LENGTH.message),
  })
  .strict();
export type MessageEvent = z.infer<typeof MessageEvent>;

/**
 * The principal states something about themselves. `key` and `value` (both or neither) make it a clear
 * declarative fact of `kind` and `cardinality`; without them the text is matched against the documented
 * patterns of the statement extractor, which choose the key and kind themselves, so `kind` and
 * `cardinality` then describe nothing.
 */
export const StatementEvent = z
  .object({
    type: z.literal('statement'),
    agent: AgentName.optional(),
    text: boundedText('text', SESSION_EVENT_TEXT_MAX_LENGTH.statement),
    key: RuleKey.optional(),
    value: RuleValue.optional(),
    kind: RuleKind.default('profile'),
    cardinality: RuleCardinality.default('single'),
  })
  .strict()
  .superRefine((statement, context) => {
    if (statement.key !== undefined && statement.value === undefined)
      context.addIssue({ code: 'custom', path: ['value'], message: 'a statement with a key also gives its value' });
    if (statement.value !== undefined && statement.key === undefined)
      context.addIssue({ code: 'custom', path: ['key'], message: 'a statement with a value also gives its key' });
    // Only a structured statement names a kind; free text is matched by patterns that pick their own.
    if (statement.key !== undefined) refuseAgentOnProfile(statement, context);
  });
export type StatementEvent = z.infer<typeof StatementEvent>;

/** The principal corrected the agent: about rule key `aspect`, the agent did `did`, the principal wanted `wanted`. */
export const CorrectionEvent = z
  .object({
    type: z.literal('correction'),
    agent: AgentName.optional(),
    aspect: RuleKey,
    did: RuleValue.optional(),
    wanted: RuleValue,
    kind: RuleKind.default('preference'),
    note: boundedText('note', SESSION_EVENT_TEXT_MAX_LENGTH.remark).optional(),
  })
  .strict();
export type CorrectionEvent = z.infer<typeof CorrectionEvent>;

/** The rule a feedback rates, as the agent applied it. */
export const RatedBelief = z
  .object({ key: RuleKey, value: RuleValue, kind: RuleKind, cardinality: RuleCardinality.default('single') })
  .strict();
export type RatedBelief = z.infer<typeof RatedBelief>;

/** The principal rated an applied belief or an output of the agent: exactly one of `belief` and `output`. */
export const FeedbackEvent = z
  .object({
    type: z.literal('feedback'),
    agent: AgentName.optional(),
    rating: FeedbackRating,
    belief: RatedBelief.optional(),
    output: boundedText('output', SESSION_EVENT_TEXT_MAX_LENGTH.reference).optional(),
    comment: boundedText('comment', SESSION_EVENT_TEXT_MAX_LENGTH.remark).optional(),
  })
  .strict()
  .refine((feedback) => (feedback.belief === undefined) !== (feedback.output === undefined), {
    message: 'feedback rates either a belief or an output: give exactly one of them',
  });
export type FeedbackEvent = z.infer<typeof FeedbackEvent>;

/** How a task ended, with the attributes that describe it (rule key to value). */
export const OutcomeEvent = z
  .object({
    type: z.literal('outcome'),
    agent: AgentName.optional(),
    task: boundedText('task', SESSION_EVENT_TEXT_MAX_LENGTH.reference),
    result: OutcomeResult,
    attributes: z
      .record(RuleKey, RuleValue, {
        error: (issue) =>
          issue.code === 'invalid_key'
            ? 'an attribute name is a rule key: a lowercase letter, then lowercase letters, digits, _, . or -'
            : 'attributes map rule keys to values',
      })
      .refine(
        (attributes) => Object.keys(attributes).length <= MAX_OUTCOME_ATTRIBUTES,
        `an outcome has at most ${MAX_OUTCOME_ATTRIBUTES} attributes`,
      )
      .default({}),
  })
  .strict();
export type OutcomeEvent = z.infer<typeof OutcomeEvent>;

/** A candidate rule the harness already knows, stated in full; `agent` is the agent the rule applies to. */
export const SignalEvent = z
  .object({
    type: z.literal('signal'),
    agent: AgentName.optional(),
    key: RuleKey,
    value: RuleValue,
    kind: RuleKind,
    basis: RuleBasis,
    cardinality: RuleCardinality.default('single'),
    polarity: RulePolarity.default('confirm'),
  })
  .strict()
  .superRefine(refuseAgentOnProfile);
export type SignalEvent = z.infer<typeof SignalEvent>;

/** What a client posts to a session: one event, told apart by `type`. */
export const SessionEventInput = z.discriminatedUnion(
  'type',
  [MessageEvent, StatementEvent, CorrectionEvent, FeedbackEvent, OutcomeEvent, SignalEvent],
  { error: `type is one of ${SessionEventType.options.join(', ')}` },
);
export type SessionEventInput = z.infer<typeof SessionEventInput>;
