import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import type { WorkflowRun, WorkflowRunStore } from '../../lambdas/kernel/workflows/workflow-run.schema.ts';
import { newRecordId } from '../support/revisions.ts';

export interface WorkflowRunStoreFixture {
  readonly store: WorkflowRunStore;
  close(): Promise<void>;
}

/** Builds a fresh, empty store on `clock` (the DynamoDB adapter dates its retention from it). */
export type CreateWorkflowRunStore = (clock: ManualClock) => Promise<WorkflowRunStoreFixture>;

/** A run as the workflow service records it when an admin starts it for `tenant` (null: a scheduled run). */
const runOf = (tenant: string | null, overrides: Partial<WorkflowRun> = {}): WorkflowRun => ({
  id: newRecordId(),
  workflow: 'belief-synthesis',
  tenant,
  trigger: tenant === null ? 'schedule' : 'admin',
  status: 'running',
  startedAt: '2026-06-01T00:00:00.000Z',
  steps: [{ name: 'collect', attempts: 1, status: 'running' }],
  ...overrides,
});

/**
 * What every WorkflowRunStore must do: a saved run reads back as saved, saving it again replaces it whole,
 * and a run is found only under the tenant it was saved for (null being the scheduled runs' own "tenant").
 * Runs against the in-memory fake and the DynamoDB adapter.
 */
export const describeWorkflowRunStoreContract = (name: string, create: CreateWorkflowRunStore) => {
  describe(`Contract: WorkflowRunStore (${name})`, () => {
    let fixture: WorkflowRunStoreFixture;

    beforeEach(async () => {
      fixture = await create(new ManualClock('2026-06-01T00:00:00.000Z'));
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: save', () => {
      it('keeps a running run as it was saved', async () => {
        // Prepare
        const run = runOf('acme');

        // Act
        await fixture.store.save(run);

        // Assess
        expect(await fixture.store.get('acme', run.id)).toStrictEqual(run);
      });

      it('keeps every field a finished run records', async () => {
        // Prepare: the optional fields too, so none is silently dropped
        const run = runOf('acme', {
          status: 'failed',
          finishedAt: '2026-06-01T00:05:00.000Z',
          steps: [
            { name: 'collect', attempts: 1, status: 'succeeded' },
            { name: 'synthesise', attempts: 3, status: 'failed', errorCode: 'ServiceUnavailableError' },
          ],
          result: { collected: 12, synthesised: 0 },
          failedStep: 'synthesise',
        });

        // Act
        await fixture.store.save(run);

        // Assess
        expect(await fixture.store.get('acme', run.id)).toStrictEqual(run);
      });

      it('replaces a run saved again under its id: steps, status and result, with nothing of the first left', async () => {
        // Prepare: the first save has a failed step the second no longer reports
        const first = runOf('acme', {
          steps: [{ name: 'collect', attempts: 2, status: 'failed', errorCode: 'ThrottlingException' }],
          result: { collected: 1, stale: 4 },
          failedStep: 'collect',
        });
        await fixture.store.save(first);
        const finished: WorkflowRun = {
          id: first.id,
          workflow: first.workflow,
          tenant: first.tenant,
          trigger: first.trigger,
          startedAt: first.startedAt,
          status: 'succeeded',
          finishedAt: '2026-06-01T00:10:00.000Z',
          steps: [
            { name: 'collect', attempts: 3, status: 'succeeded' },
            { name: 'synthesise', attempts: 1, status: 'succeeded' },
          ],
          result: { collected: 12 },
        };

        // Act
        await fixture.store.save(finished);

        // Assess: no merge with the first (its failedStep, errorCode and `stale` count are gone)
        expect(await fixture.store.get('acme', first.id)).toStrictEqual(finished);
      });

      it('stores a copy: changing the run after saving it, or the run read back, changes nothing stored', async () => {
        // Prepare
        const run = runOf('acme');
        await fixture.store.save(run);

        // Act
        run.steps.push({ name: 'late', attempts: 1, status: 'running' });
        const read = (await fixture.store.get('acme', run.id)) as WorkflowRun;
        read.steps.length = 0;

        // Assess
        expect((await fixture.store.get('acme', run.id))?.steps).toEqual([
          { name: 'collect', attempts: 1, status: 'running' },
        ]);
      });
    });

    describe('Method: get', () => {
      it('finds a tenant’s run only under that tenant: not under another, nor among the scheduled runs', async () => {
        // Prepare
        const run = runOf('acme');
        await fixture.store.save(run);

        // Act
        const found = {
          own: await fixture.store.get('acme', run.id),
          other: await fixture.store.get('globex', run.id),
          scheduled: await fixture.store.get(null, run.id),
        };

        // Assess
        expect(found).toStrictEqual({ own: run, other: undefined, scheduled: undefined });
      });

      it('finds a scheduled run (no tenant) under null, and under no tenant', async () => {
        // Prepare
        const run = runOf(null);
        await fixture.store.save(run);

        // Act
        const found = {
          scheduled: await fixture.store.get(null, run.id),
          tenant: await fixture.store.get('acme', run.id),
        };

        // Assess
        expect(found).toStrictEqual({ scheduled: run, tenant: undefined });
      });

      it('keeps runs of one id apart per tenant: saving one never overwrites another’s', async () => {
        // Prepare
        const id = newRecordId();
        const runs = [
          runOf('acme', { id, result: { tenant: 1 } }),
          runOf('globex', { id, result: { tenant: 2 } }),
          runOf(null, { id, result: { tenant: 3 } }),
        ];

        // Act
        for (const run of runs) await fixture.store.save(run);

        // Assess
        expect([
          await fixture.store.get('acme', id),
          await fixture.store.get('globex', id),
          await fixture.store.get(null, id),
        ]).toStrictEqual(runs);
      });

      it('answers undefined for an id never saved', async () => {
        // Prepare: another run exists, so "empty store" is not what makes the answer undefined
        await fixture.store.save(runOf('acme'));

        // Act
        const found = await fixture.store.get('acme', newRecordId());

        // Assess
        expect(found).toBeUndefined();
      });
    });
  });
};
