import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemoryWorkflowRunStore } from '../../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { LocalWorkflowRunner } from '../../../lambdas/adapters/workflows/local-workflow-runner.ts';
import { WORKFLOWS } from '../../../lambdas/app/service-tables.ts';
import { Belief, type CandidateRule } from '../../../lambdas/capabilities/learning/belief.schema.ts';
import { beliefExpiresAt, beliefIdOf, sourceEventIdsOf } from '../../../lambdas/capabilities/learning/belief-record.ts';
import { BELIEF_SYNTHESIS, beliefSynthesis } from '../../../lambdas/capabilities/learning/belief-synthesis.workflow.ts';
import type { LearningSettings } from '../../../lambdas/capabilities/learning/learning-settings.ts';
import { mergeAndEvaluate } from '../../../lambdas/capabilities/learning/merge-rule.ts';
import { recordEventOf } from '../../../lambdas/kernel/events/record-event-of.ts';
import type { Namespace } from '../../../lambdas/kernel/namespaces/namespace.ts';
import { systemActor } from '../../../lambdas/kernel/namespaces/system-namespaces.ts';
import { RevisionConflictError } from '../../../lambdas/kernel/records/record.errors.ts';
import type { RecordRevision } from '../../../lambdas/kernel/records/record.schema.ts';
import { RevisionWriter } from '../../../lambdas/kernel/records/revision-writer.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { createUlidGenerator } from '../../../lambdas/kernel/time/ids.ts';
import type { StepInput } from '../../../lambdas/kernel/workflows/workflow-step-executor.ts';
import { WorkflowStepExecutor } from '../../../lambdas/kernel/workflows/workflow-step-executor.ts';
import { KINDS, RECORD_KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';
import { DEFAULT_LEARNING } from '../learning/learning-fixtures.ts';

const START = '2026-01-01T00:00:00.000Z';
const ids = createUlidGenerator();
const acme = scopeOf({ tenant: 'acme', sub: 'alice', client: 'coder-app' });
const globex = scopeOf({ tenant: 'globex', sub: 'gary', client: 'coder-app' });
const actor = { principal: 'alice', client: 'coder-app' };

/** A store whose next `failures` appends lose the race, as when a merge appends the same revision first. */
class ContendedRecordStore extends InMemoryRecordStore {
  failures = 0;

  override async append(...args: Parameters<InMemoryRecordStore['append']>): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new RevisionConflictError();
    }
    return super.append(...args);
  }
}

const candidate = (overrides: Partial<CandidateRule> = {}): CandidateRule => ({
  key: 'style.tone',
  value: 'concise',
  kind: 'preference',
  basis: 'declarative',
  cardinality: 'single',
  polarity: 'confirm',
  agent: 'coder',
  ...overrides,
});

/** Folds observations `[session, day offset]` of one candidate through the merge, evaluating after each. */
const learned = (
  rule: CandidateRule,
  sightings: readonly (readonly [session: string, day: number])[],
  settings: LearningSettings = DEFAULT_LEARNING,
): Belief => {
  let belief: Belief | undefined;
  for (const [session, day] of sightings) {
    const at = new Date(Date.parse(START) + day * 86_400_000);
    belief = mergeAndEvaluate(belief, rule, { eventId: ids.next(), session, at: at.toISOString() }, at, settings);
  }
  if (belief === undefined) throw new Error('learn from at least one sighting');
  return belief;
};

describe('Function: beliefSynthesis', () => {
  let clock: ManualClock;
  let store: ContendedRecordStore;
  let learning: (agent: string | undefined) => LearningSettings;

  beforeEach(() => {
    clock = new ManualClock(START);
    store = new ContendedRecordStore({ clock });
    learning = () => DEFAULT_LEARNING;
  });

  const synthesis = () =>
    beliefSynthesis({
      heads: store,
      directory: store,
      clock,
      writer: new RevisionWriter({ revisions: store, ids, clock }),
      kinds: RECORD_KINDS,
      learning: (agent) => learning(agent),
    });
  const evaluateBeliefs = (input: StepInput = { tenant: 'acme' }) =>
    synthesis().steps['evaluate-beliefs']?.(input) ?? Promise.reject(new Error('no evaluate-beliefs step'));

  /** Stores `belief` as revision 1 of its record, the way the merge stores a first belief. */
  const stored = async (namespace: Namespace, belief: Belief): Promise<RecordRevision> => {
    const now = clock.now();
    const revision: RecordRevision = {
      id: beliefIdOf({ kind: belief.kind, agent: belief.agent, key: belief.key }),
      namespace,
      revision: 1,
      status: 'active',
      content: belief,
      provenance: { createdBy: actor, revisedBy: actor, sourceEventIds: sourceEventIdsOf(belief) },
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      expiresAt: beliefExpiresAt(now, learning(belief.agent)),
    };
    await store.append(revision, recordEventOf(revision, 'record.created', ids.next()));
    return revision;
  };

  const headOf = async (record: RecordRevision) => {
    const head = await store.getHead(record.namespace, record.id);
    return { revision: head?.revision, belief: Belief.parse(head?.content) };
  };

  const revisionsOf = async (record: RecordRevision) =>
    (await store.listRevisions(record.namespace, record.id, { limit: 100 })).items;

  const coderPreferences = () => acme.namespace(KINDS.preference, { agent: 'coder' });
  const declared = () => learned(candidate(), [['s1', 0]]);

  describe('Policy: BELIEF_SYNTHESIS', () => {
    it('is catalogued as a daily workflow whose every step and failure step the implementation handles', () => {
      const implementation = synthesis();

      expect(WORKFLOWS).toContain(BELIEF_SYNTHESIS);
      expect(implementation.policy).toBe(BELIEF_SYNTHESIS);
      expect(BELIEF_SYNTHESIS).toMatchObject({ name: 'belief-synthesis', schedule: 'rate(1 day)' });
      for (const step of [...BELIEF_SYNTHESIS.steps.map(({ name }) => name), BELIEF_SYNTHESIS.onFailure])
        expect(implementation.steps[step]).toBeTypeOf('function');
    });
  });

  describe('Step: evaluate-beliefs', () => {
    it('decays a mature belief unconfirmed for 61 days to provisional in a new revision, keeping the history', async () => {
      // Prepare
      const belief = declared();
      expect(belief.status).toBe('mature');
      const record = await stored(coderPreferences(), belief);
      clock.advanceDays(61);

      // Act
      const output = await evaluateBeliefs({ tenant: 'acme', counts: { earlier: 7 } });

      // Assess
      expect(output).toEqual({
        tenant: 'acme',
        counts: { earlier: 7, evaluated: 1, decayed: 1, expired: 0, revised: 1, contended: 0, unreadable: 0 },
      });
      const head = await store.getHead(record.namespace, record.id);
      expect(head).toMatchObject({
        id: record.id,
        revision: 2,
        status: 'active',
        createdAt: record.createdAt,
        updatedAt: clock.now().toISOString(),
        expiresAt: beliefExpiresAt(clock.now(), DEFAULT_LEARNING),
        provenance: { ...record.provenance, revisedBy: systemActor('belief-synthesis') },
      });
      const revised = Belief.parse(head?.content);
      // Dated to when the 60 days ran out, not to when the sweep noticed.
      const staleSince = new Date(clock.now().getTime() - 86_400_000).toISOString();
      expect(revised).toMatchObject({ status: 'provisional', statusChangedAt: staleSince });
      expect(revised.appliedValue).toBeUndefined();
      expect(revised.values[0]?.evidence).toEqual(belief.values[0]?.evidence);
      const revisions = await revisionsOf(record);
      expect(revisions.map(({ revision }) => revision)).toEqual([1, 2]);
      expect(revisions[0]?.content).toEqual(belief);
      const events = (await store.pendingEvents(10)).map(({ event }) => event);
      expect(events.at(-1)).toMatchObject({
        event_type: 'record.revised',
        record_id: record.id,
        revision: 2,
        actor: systemActor('belief-synthesis'),
      });
    });

    it('leaves a belief alone while it is still fresh (60 days)', async () => {
      const record = await stored(coderPreferences(), declared());
      clock.advanceDays(60);

      const output = await evaluateBeliefs();

      expect(output.counts).toMatchObject({ evaluated: 1, decayed: 0, revised: 0 });
      expect((await headOf(record)).revision).toBe(1);
    });

    it('counts decay of a behavioral belief from its last confirmation', async () => {
      // three observations across two sessions: mature on day 2
      const belief = learned(candidate({ basis: 'behavioral' }), [
        ['s1', 0],
        ['s1', 1],
        ['s2', 2],
      ]);
      expect(belief).toMatchObject({ status: 'mature', basis: 'behavioral', appliedValue: 'concise' });
      const record = await stored(coderPreferences(), belief);

      clock.advanceDays(62);
      expect((await evaluateBeliefs()).counts).toMatchObject({ evaluated: 1, revised: 0 });
      clock.advanceDays(1);
      expect((await evaluateBeliefs()).counts).toMatchObject({ evaluated: 1, decayed: 1, revised: 1 });

      expect(await headOf(record)).toMatchObject({ revision: 2, belief: { status: 'provisional' } });
    });

    it('expires a belief unconfirmed for 181 days', async () => {
      const record = await stored(coderPreferences(), declared());
      clock.advanceDays(181);

      const output = await evaluateBeliefs();

      expect(output.counts).toEqual({
        evaluated: 1,
        decayed: 0,
        expired: 1,
        revised: 1,
        contended: 0,
        unreadable: 0,
      });
      const { revision, belief } = await headOf(record);
      expect(revision).toBe(2);
      expect(belief).toMatchObject({
        status: 'expired',
        confidence: 0,
        values: [{ status: 'expired', confidence: 0 }],
      });
    });

    it('walks a belief through decay then expiry, one revision per change', async () => {
      const record = await stored(coderPreferences(), declared());

      clock.advanceDays(61);
      expect((await evaluateBeliefs()).counts).toMatchObject({ decayed: 1, expired: 0, revised: 1 });
      clock.advanceDays(120);
      expect((await evaluateBeliefs()).counts).toMatchObject({ decayed: 0, expired: 1, revised: 1 });

      const statuses = (await revisionsOf(record)).map(({ content }) => Belief.parse(content).status);
      expect(statuses).toEqual(['mature', 'provisional', 'expired']);
    });

    it('appends nothing when the evaluation changes nothing: a second run at the same instant revises nothing', async () => {
      const record = await stored(coderPreferences(), declared());
      clock.advanceDays(61);

      const first = await evaluateBeliefs();
      const second = await evaluateBeliefs();

      expect(first.counts).toMatchObject({ evaluated: 1, revised: 1 });
      expect(second.counts).toEqual({
        evaluated: 1,
        decayed: 0,
        expired: 0,
        revised: 0,
        contended: 0,
        unreadable: 0,
      });
      expect((await revisionsOf(record)).length).toBe(2);
    });

    it('leaves an expired belief alone on later runs', async () => {
      const record = await stored(coderPreferences(), declared());
      clock.advanceDays(181);
      await evaluateBeliefs();
      clock.advanceDays(30);

      const output = await evaluateBeliefs();

      expect(output.counts).toMatchObject({ evaluated: 1, revised: 0, expired: 0 });
      expect((await headOf(record)).revision).toBe(2);
    });

    it("judges each belief by its agent's learning settings", async () => {
      // Prepare: `fast` decays after 10 days, every other agent (and the principal at large) after 60
      learning = (agent) => (agent === 'fast' ? { ...DEFAULT_LEARNING, decayAfterDays: 10 } : DEFAULT_LEARNING);
      const fast = await stored(
        acme.namespace(KINDS.preference, { agent: 'fast' }),
        learned(candidate({ agent: 'fast' }), [['s1', 0]]),
      );
      const coder = await stored(coderPreferences(), declared());
      clock.advanceDays(11);

      // Act
      const output = await evaluateBeliefs();

      // Assess
      expect(output.counts).toMatchObject({ evaluated: 2, decayed: 1, revised: 1 });
      expect(await headOf(fast)).toMatchObject({ revision: 2, belief: { status: 'provisional' } });
      expect(await headOf(coder)).toMatchObject({ revision: 1, belief: { status: 'mature' } });
      const fastHead = await store.getHead(fast.namespace, fast.id);
      expect(fastHead?.expiresAt).toBe(beliefExpiresAt(clock.now(), learning('fast')));
    });

    it('evaluates profile and pattern beliefs of the principal at large too', async () => {
      const profile = await stored(
        acme.namespace(KINDS.profile),
        learned(candidate({ kind: 'profile', key: 'home.city', value: 'Lyon', agent: undefined }), [['s1', 0]]),
      );
      const pattern = await stored(
        acme.namespace(KINDS.pattern),
        learned(candidate({ kind: 'pattern', key: 'work.hours', value: 'mornings', agent: undefined }), [['s1', 0]]),
      );
      clock.advanceDays(61);

      const output = await evaluateBeliefs();

      expect(output.counts).toMatchObject({ evaluated: 2, decayed: 2, revised: 2 });
      expect((await headOf(profile)).belief.status).toBe('provisional');
      expect((await headOf(pattern)).belief.status).toBe('provisional');
    });

    it("leaves another tenant's namespaces alone when a tenant is given, and sweeps every tenant otherwise", async () => {
      const ours = await stored(coderPreferences(), declared());
      const theirs = await stored(globex.namespace(KINDS.preference, { agent: 'coder' }), declared());
      clock.advanceDays(61);

      const scoped = await evaluateBeliefs({ tenant: 'acme' });

      expect(scoped.counts).toMatchObject({ evaluated: 1, revised: 1 });
      expect((await headOf(ours)).revision).toBe(2);
      expect((await headOf(theirs)).revision).toBe(1);

      const everywhere = await evaluateBeliefs({ tenant: null });

      expect(everywhere.counts).toMatchObject({ evaluated: 2, revised: 1 });
      expect((await headOf(theirs)).revision).toBe(2);
    });

    it('counts a record that is not a belief of its namespace as unreadable and goes on', async () => {
      // Prepare: garbage content, and a belief stored in another agent's namespace than its own
      const namespace = coderPreferences();
      const garbage: RecordRevision = {
        id: 'not-a-belief',
        namespace,
        revision: 1,
        status: 'active',
        content: { text: 'hello' },
        provenance: { createdBy: actor, revisedBy: actor, sourceEventIds: [] },
        createdAt: START,
        updatedAt: START,
        expiresAt: beliefExpiresAt(clock.now(), DEFAULT_LEARNING),
      };
      await store.append(garbage, recordEventOf(garbage, 'record.created', ids.next()));
      const misplaced = await stored(
        acme.namespace(KINDS.preference, { agent: 'other' }),
        learned(candidate({ key: 'style.length' }), [['s1', 0]]),
      );
      const record = await stored(namespace, declared());
      clock.advanceDays(61);

      // Act
      const output = await evaluateBeliefs();

      // Assess
      expect(output.counts).toMatchObject({ evaluated: 1, decayed: 1, revised: 1, unreadable: 2 });
      expect((await headOf(record)).revision).toBe(2);
      expect((await store.getHead(namespace, 'not-a-belief'))?.revision).toBe(1);
      expect((await store.getHead(misplaced.namespace, misplaced.id))?.revision).toBe(1);
    });

    it('ignores namespaces that hold no beliefs', async () => {
      const note: RecordRevision = {
        id: 'note-1',
        namespace: acme.namespace(KINDS.note),
        revision: 1,
        status: 'active',
        content: { text: 'hello', tags: [] },
        provenance: { createdBy: actor, revisedBy: actor, sourceEventIds: [] },
        createdAt: START,
        updatedAt: START,
        expiresAt: beliefExpiresAt(clock.now(), DEFAULT_LEARNING),
      };
      await store.append(note, recordEventOf(note, 'record.created', ids.next()));

      const output = await evaluateBeliefs();

      expect(output.counts).toMatchObject({ evaluated: 0, unreadable: 0 });
    });

    it('counts a revision another writer appended first as contended, and revises on the next run', async () => {
      const record = await stored(coderPreferences(), declared());
      clock.advanceDays(61);
      store.failures = 1;

      const contended = await evaluateBeliefs();

      expect(contended.counts).toEqual({
        evaluated: 1,
        decayed: 0,
        expired: 0,
        revised: 0,
        contended: 1,
        unreadable: 0,
      });
      expect((await headOf(record)).revision).toBe(1);

      const retried = await evaluateBeliefs();

      expect(retried.counts).toMatchObject({ decayed: 1, revised: 1, contended: 0 });
    });

    it('lets any other storage error fail the step, for its retry policy to handle', async () => {
      await stored(coderPreferences(), declared());
      clock.advanceDays(61);
      const failing = beliefSynthesis({
        heads: Object.assign(Object.create(store) as InMemoryRecordStore, {
          listHeads: () => Promise.reject(new Error('storage down')),
        }),
        directory: store,
        clock,
        writer: new RevisionWriter({ revisions: store, ids, clock }),
        kinds: RECORD_KINDS,
        learning,
      });

      await expect(failing.steps['evaluate-beliefs']?.({ tenant: 'acme' })).rejects.toThrow('storage down');
    });

    it('pages through more heads than one page holds', async () => {
      const namespace = coderPreferences();
      for (let index = 0; index < 105; index += 1)
        await stored(namespace, learned(candidate({ key: `topic.k${String(index).padStart(3, '0')}` }), [['s1', 0]]));
      clock.advanceDays(61);

      const output = await evaluateBeliefs();

      expect(output.counts).toMatchObject({ evaluated: 105, decayed: 105, revised: 105 });
    });
  });

  describe('Steps: report and record-failure', () => {
    it('pass their input through', async () => {
      const input: StepInput = { tenant: 'acme', counts: { evaluated: 3 } };
      const implementation = synthesis();

      expect(await implementation.steps.report?.(input)).toEqual(input);
      expect(await implementation.steps['record-failure']?.(input)).toEqual(input);
    });
  });

  describe('Run: through the step executor', () => {
    it("records the run's counts as its result", async () => {
      await stored(coderPreferences(), declared());
      clock.advanceDays(61);
      const runs = new InMemoryWorkflowRunStore();
      const executor = new WorkflowStepExecutor({ workflows: [synthesis()], runs, clock });
      const runner = new LocalWorkflowRunner({ executor, sleep: async () => undefined });

      await runner.start('belief-synthesis', 'run-1', { tenant: 'acme' });
      await runner.idle();

      expect(await runs.get('acme', 'run-1')).toMatchObject({
        workflow: 'belief-synthesis',
        status: 'succeeded',
        steps: [
          { name: 'evaluate-beliefs', attempts: 1, status: 'succeeded' },
          { name: 'report', attempts: 1, status: 'succeeded' },
        ],
        result: { evaluated: 1, decayed: 1, expired: 0, revised: 1, contended: 0, unreadable: 0 },
      });
    });
  });
});
