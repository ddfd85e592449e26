/**
 * Learned memory under load: session events appended (draft and merge inside the request) and applied views
 * read, mixed at a fixed arrival rate against the local server (independent runs, each on a fresh server),
 * then the throughput ceiling: the highest rate at which the learning budgets still hold.
 */
import type { BenchOptions } from '../bench-options.ts';
import { findCeiling } from '../load/ceiling-search.ts';
import { type FixedRateRun, runCostMeasurement, runFixedRates } from '../load/fixed-rate-run.ts';
import { mintOrgAdmins } from '../load/identities.ts';
import {
  LEARNING_OPERATIONS,
  type LearningObservation,
  type LearningOperation,
  LearningWorkload,
} from '../load/learning-workload.ts';
import { LoadSession, type MeasuredPhase, withSessionSetup } from '../load/load-session.ts';
import { meanObserved } from '../load/phase-analysis.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import type { ServerStartOptions } from '../server-process.ts';
import { LEARNING_BUDGET, type LearningRun, learningLoadReport } from './learning-report.ts';
import { priceRuns } from './scenario-costs.ts';

const OBSERVATIONS: readonly LearningObservation[] = [
  'beliefsTouched',
  'matureBeliefs',
  'withheld',
  'appliedValues',
  'clamps',
];

export const learningLoadScenario: Scenario = {
  name: 'learning-load',
  run: (options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> =>
    withSessionSetup(options, log, async (setup) => {
      const admins = await mintOrgAdmins(setup.issuerTemplate, options.workload.tenants);
      const openSession = (seedOffset: number, warmupRate: number, serverOptions?: ServerStartOptions) =>
        LoadSession.open(
          setup,
          new LearningWorkload(setup.identities, admins, options.workload, seedOffset),
          warmupRate,
          serverOptions,
        );
      const fixedRate = {
        name: 'learning-load',
        budget: LEARNING_BUDGET,
        open: (index: number, serverOptions?: ServerStartOptions) =>
          openSession(index, options.load.ratePerSecond, serverOptions),
        complete: (run: FixedRateRun<LearningOperation>, measured: MeasuredPhase): LearningRun => ({
          ...run,
          observed: Object.fromEntries(
            OBSERVATIONS.map((name) => [name, meanObserved(measured.phase.samples, name)]),
          ) as Record<LearningObservation, number>,
        }),
      };
      const runs = await runFixedRates(setup, fixedRate);
      const costRun = await runCostMeasurement(setup, fixedRate);
      // One fresh server seeded like the runs (a server per step would spend most of the budget seeding).
      const ceiling = await findCeiling(setup, {
        name: 'learning-load',
        budget: LEARNING_BUDGET,
        ceiling: options.learningCeiling,
        open: (warmupRate) => openSession(100, warmupRate),
        figures: () => ({}),
      });
      const costs = await priceRuns(options, [costRun], LEARNING_OPERATIONS, 'learning', log);
      return learningLoadReport(options, runs, ceiling, { ...costs, run: costRun });
    }),
};
