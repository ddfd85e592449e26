/**
 * Learned memory under load: session events appended (draft and merge inside the request) and applied views
 * read, mixed at a fixed arrival rate against the local server; independent runs, each on a fresh server.
 */
import type { BenchOptions } from '../bench-options.ts';
import { runFixedRates } from '../load/fixed-rate-run.ts';
import { mintOrgAdmins } from '../load/identities.ts';
import { type LearningObservation, LearningWorkload } from '../load/learning-workload.ts';
import { LoadSession, withSessionSetup } from '../load/load-session.ts';
import { meanObserved } from '../load/phase-analysis.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { LEARNING_BUDGET, type LearningRun, learningLoadReport } from './learning-report.ts';

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
      const runs = await runFixedRates(setup, {
        name: 'learning-load',
        budget: LEARNING_BUDGET,
        open: (index) =>
          LoadSession.open(
            setup,
            new LearningWorkload(setup.identities, admins, options.workload, index),
            options.load.ratePerSecond,
          ),
        complete: (run, measured): LearningRun => ({
          ...run,
          observed: Object.fromEntries(
            OBSERVATIONS.map((name) => [name, meanObserved(measured.phase.samples, name)]),
          ) as Record<LearningObservation, number>,
        }),
      });
      return learningLoadReport(options, runs);
    }),
};
