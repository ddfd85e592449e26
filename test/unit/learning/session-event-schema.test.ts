import { describe, expect, it } from 'vitest';
import {
  MAX_OUTCOME_ATTRIBUTES,
  SESSION_EVENT_TEXT_MAX_LENGTH,
  SessionEventInput,
  SessionEventType,
} from '../../../lambdas/capabilities/learning/session-event.schema.ts';

const PROFILE_WITH_AGENT = 'a profile fact is about the principal; agent applies to preferences and patterns';

/** The issues a refused event reports, as an API caller sees them. */
const issuesOf = (input: unknown): { path: string; message: string }[] => {
  const parsed = SessionEventInput.safeParse(input);
  if (parsed.success) throw new Error('expected the event to be refused');
  return parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

const parsed = (input: unknown): SessionEventInput => SessionEventInput.parse(input);

const text = (length: number): string => 'a'.repeat(length);

const VALID_EVENTS: readonly Record<string, unknown>[] = [
  { type: 'message', role: 'user', text: 'Could you summarise the incident?' },
  { type: 'statement', text: 'I live in Lisbon.' },
  { type: 'correction', aspect: 'response.length', did: 'long', wanted: 'short' },
  { type: 'feedback', rating: 'positive', output: 'answer-42' },
  { type: 'outcome', task: 'deploy the billing service', result: 'success' },
  { type: 'signal', key: 'editor.theme', value: 'dark', kind: 'preference', basis: 'behavioral' },
];

describe('Schema: SessionEventInput', () => {
  describe('Discriminator: type', () => {
    it('accepts one event of each of the six types', () => {
      const types = VALID_EVENTS.map((event) => parsed(event).type);

      expect(types).toEqual(SessionEventType.options);
      expect(SessionEventType.options).toEqual(['message', 'statement', 'correction', 'feedback', 'outcome', 'signal']);
    });

    it.each([
      { name: 'an unknown type', input: { type: 'thought', text: 'hmm' } },
      { name: 'no type', input: { text: 'hello' } },
    ])('refuses $name with the list of types', ({ input }) => {
      expect(issuesOf(input)).toEqual([
        { path: 'type', message: 'type is one of message, statement, correction, feedback, outcome, signal' },
      ]);
    });

    it.each(VALID_EVENTS)('refuses an unknown field on a $type event', (event) => {
      expect(issuesOf({ ...event, mood: 'cheerful' })).toEqual([{ path: '', message: 'Unrecognized key: "mood"' }]);
    });
  });

  describe('Field: agent', () => {
    it.each(VALID_EVENTS)('is optional and kept on a $type event', (event) => {
      expect(parsed({ ...event, agent: 'coder-2' }).agent).toBe('coder-2');
    });

    it.each(['', 'code/r', 'a'.repeat(65), 'coder agent'])('refuses the unsafe agent name %j', (agent) => {
      expect(issuesOf({ type: 'message', role: 'agent', text: 'done', agent })).toEqual([
        { path: 'agent', message: 'an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -' },
      ]);
    });
  });

  describe('Type: message', () => {
    it('takes a role and a text of up to 16000 characters', () => {
      const event = parsed({ type: 'message', role: 'tool', text: text(16_000) });

      expect(event).toEqual({ type: 'message', role: 'tool', text: text(16_000) });
      expect(SESSION_EVENT_TEXT_MAX_LENGTH.message).toBe(16_000);
    });

    it('refuses a text longer than 16000 characters', () => {
      expect(issuesOf({ type: 'message', role: 'user', text: text(16_001) })).toEqual([
        { path: 'text', message: 'text is at most 16000 characters' },
      ]);
    });

    it.each([
      { text: '', message: 'text must not be empty' },
      { text: ' \n\t ', message: 'text must not be blank' },
    ])('refuses the text $text.length characters of nothing with "$message"', ({ text: empty, message }) => {
      expect(issuesOf({ type: 'message', role: 'user', text: empty })).toEqual([{ path: 'text', message }]);
    });

    it('refuses a role outside user, agent, system and tool', () => {
      expect(issuesOf({ type: 'message', role: 'assistant', text: 'hi' })).toEqual([
        { path: 'role', message: 'role is user, agent, system or tool' },
      ]);
    });
  });

  describe('Type: statement', () => {
    it('defaults a structured statement to a single-valued profile fact', () => {
      expect(parsed({ type: 'statement', text: 'I live in Lisbon', key: 'location', value: 'Lisbon' })).toEqual({
        type: 'statement',
        text: 'I live in Lisbon',
        key: 'location',
        value: 'Lisbon',
        kind: 'profile',
        cardinality: 'single',
      });
    });

    it('takes a value of false or zero as a value', () => {
      expect(parsed({ type: 'statement', text: 'No emojis', key: 'response.emoji', value: false })).toMatchObject({
        value: false,
      });
      expect(parsed({ type: 'statement', text: 'Zero retries', key: 'retries', value: 0 })).toMatchObject({
        value: 0,
      });
    });

    it('refuses a key without its value', () => {
      expect(issuesOf({ type: 'statement', text: 'My timezone', key: 'timezone' })).toEqual([
        { path: 'value', message: 'a statement with a key also gives its value' },
      ]);
    });

    it('refuses a value without its key', () => {
      expect(issuesOf({ type: 'statement', text: 'Berlin', value: 'Berlin' })).toEqual([
        { path: 'key', message: 'a statement with a value also gives its key' },
      ]);
    });

    it('refuses a structured profile fact that names an agent', () => {
      expect(
        issuesOf({ type: 'statement', text: 'I live in Oslo', key: 'location', value: 'Oslo', agent: 'coder' }),
      ).toEqual([{ path: 'agent', message: PROFILE_WITH_AGENT }]);
    });

    it('takes an agent on a structured preference and on free text, whose patterns choose the kind', () => {
      const preference = { type: 'statement', text: 'Short please', key: 'response.length', value: 'short' };

      expect(parsed({ ...preference, kind: 'preference', agent: 'coder' }).agent).toBe('coder');
      expect(parsed({ type: 'statement', text: 'I live in Oslo', agent: 'coder' }).agent).toBe('coder');
    });

    it('refuses a text longer than 4000 characters', () => {
      expect(issuesOf({ type: 'statement', text: text(4_001) })).toEqual([
        { path: 'text', message: 'text is at most 4000 characters' },
      ]);
    });

    it('refuses a malformed key and an over-long value with the rule messages', () => {
      expect(issuesOf({ type: 'statement', text: 'x', key: 'Time Zone', value: text(257) })).toEqual([
        {
          path: 'key',
          message: 'a key is 1-64 characters: a lowercase letter, then lowercase letters, digits, _, . or -',
        },
        { path: 'value', message: 'a text value is at most 256 characters' },
      ]);
    });
  });

  describe('Type: correction', () => {
    it('defaults the kind to preference and keeps what was done and wanted', () => {
      expect(parsed({ type: 'correction', aspect: 'response.tone', wanted: 'formal', note: 'for clients' })).toEqual({
        type: 'correction',
        aspect: 'response.tone',
        wanted: 'formal',
        kind: 'preference',
        note: 'for clients',
      });
    });

    it('refuses a correction that does not say what was wanted', () => {
      expect(issuesOf({ type: 'correction', aspect: 'response.tone', did: 'casual' })).toEqual([
        {
          path: 'wanted',
          message: 'a value is a string (at most 256 characters), a finite number or a boolean',
        },
      ]);
    });

    it('refuses an aspect that is not a rule key', () => {
      expect(issuesOf({ type: 'correction', aspect: 'Tone!', wanted: 'formal' })).toEqual([
        {
          path: 'aspect',
          message: 'a key is 1-64 characters: a lowercase letter, then lowercase letters, digits, _, . or -',
        },
      ]);
    });

    it('refuses a note longer than 2000 characters', () => {
      expect(issuesOf({ type: 'correction', aspect: 'response.tone', wanted: 'formal', note: text(2_001) })).toEqual([
        { path: 'note', message: 'note is at most 2000 characters' },
      ]);
    });
  });

  describe('Type: feedback', () => {
    it('rates a belief, whose cardinality defaults to single', () => {
      expect(
        parsed({
          type: 'feedback',
          rating: 'negative',
          belief: { key: 'response.length', value: 'long', kind: 'preference' },
          comment: 'too wordy',
        }),
      ).toEqual({
        type: 'feedback',
        rating: 'negative',
        belief: { key: 'response.length', value: 'long', kind: 'preference', cardinality: 'single' },
        comment: 'too wordy',
      });
    });

    it.each([
      { name: 'neither a belief nor an output', rated: {} },
      {
        name: 'both a belief and an output',
        rated: { output: 'answer-1', belief: { key: 'response.length', value: 'long', kind: 'preference' } },
      },
    ])('refuses $name', ({ rated }) => {
      expect(issuesOf({ type: 'feedback', rating: 'positive', ...rated })).toEqual([
        { path: '', message: 'feedback rates either a belief or an output: give exactly one of them' },
      ]);
    });

    it('refuses a rating other than positive or negative', () => {
      expect(issuesOf({ type: 'feedback', rating: 'meh', output: 'answer-1' })).toEqual([
        { path: 'rating', message: 'rating is positive or negative' },
      ]);
    });

    it('refuses an output reference longer than 256 characters', () => {
      expect(issuesOf({ type: 'feedback', rating: 'positive', output: text(257) })).toEqual([
        { path: 'output', message: 'output is at most 256 characters' },
      ]);
    });

    it('refuses an unknown field inside the rated belief', () => {
      const belief = { key: 'response.length', value: 'long', kind: 'preference', basis: 'behavioral' };

      expect(issuesOf({ type: 'feedback', rating: 'positive', belief })).toEqual([
        { path: 'belief', message: 'Unrecognized key: "basis"' },
      ]);
    });
  });

  describe('Type: outcome', () => {
    it('defaults the attributes to none', () => {
      expect(parsed({ type: 'outcome', task: 'release', result: 'partial' })).toEqual({
        type: 'outcome',
        task: 'release',
        result: 'partial',
        attributes: {},
      });
    });

    it(`takes ${MAX_OUTCOME_ATTRIBUTES} attributes and refuses one more`, () => {
      const attributes = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, i]));

      expect(parsed({ type: 'outcome', task: 't', result: 'success', attributes: attributes(32) })).toMatchObject({
        attributes: attributes(32),
      });
      expect(issuesOf({ type: 'outcome', task: 't', result: 'success', attributes: attributes(33) })).toEqual([
        { path: 'attributes', message: 'an outcome has at most 32 attributes' },
      ]);
    });

    it('refuses an attribute name that is not a rule key', () => {
      expect(issuesOf({ type: 'outcome', task: 't', result: 'success', attributes: { Retries: 2 } })).toEqual([
        {
          path: 'attributes.Retries',
          message: 'an attribute name is a rule key: a lowercase letter, then lowercase letters, digits, _, . or -',
        },
      ]);
    });

    it('refuses a result other than success, failure or partial, and a task over 256 characters', () => {
      expect(issuesOf({ type: 'outcome', task: text(257), result: 'done' })).toEqual([
        { path: 'task', message: 'task is at most 256 characters' },
        { path: 'result', message: 'result is success, failure or partial' },
      ]);
    });
  });

  describe('Type: signal', () => {
    it('defaults to a single-valued confirmation', () => {
      expect(
        parsed({ type: 'signal', key: 'review.depth', value: 3, kind: 'pattern', basis: 'behavioral', agent: 'rev' }),
      ).toEqual({
        type: 'signal',
        key: 'review.depth',
        value: 3,
        kind: 'pattern',
        basis: 'behavioral',
        cardinality: 'single',
        polarity: 'confirm',
        agent: 'rev',
      });
    });

    it('refuses a profile fact that names an agent', () => {
      expect(
        issuesOf({ type: 'signal', key: 'location', value: 'Oslo', kind: 'profile', basis: 'declarative', agent: 'a' }),
      ).toEqual([{ path: 'agent', message: PROFILE_WITH_AGENT }]);
    });

    it('refuses a non-finite number and an unknown basis', () => {
      const issues = issuesOf({ type: 'signal', key: 'k', value: Number.NaN, kind: 'pattern', basis: 'guess' });

      expect(issues.map(({ path }) => path)).toEqual(['value', 'basis']);
      expect(issues[0]?.message).toBe('a value is a string (at most 256 characters), a finite number or a boolean');
    });
  });
});
