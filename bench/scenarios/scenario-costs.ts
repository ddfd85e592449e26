/** What a load scenario's runs cost, priced once for its report, and saved as a baseline when asked. */
import { execFileSync } from 'node:child_process';
import type { BenchOptions } from '../bench-options.ts';
import { type CostBaseline, readCostBaselines, writeCostBaseline } from '../cost-baseline.ts';
import { loadDeployedConsumers } from '../cost-model.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import { type CostFigures, costFigures } from '../report/cost-tables.ts';

export const priceRuns = async (
  options: BenchOptions,
  runs: readonly FixedRateRun[],
  operations: readonly string[],
  workload: string,
  log: (line: string) => void,
): Promise<{ figures: CostFigures; baselines: CostBaseline[] }> => {
  const figures = costFigures(runs, operations, workload, loadDeployedConsumers());
  if (options.saveCostBaseline !== undefined) {
    const path = await writeCostBaseline(
      {
        name: options.saveCostBaseline,
        revision: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
        measuredAt: new Date().toISOString(),
        command:
          `npm run bench -- --scenario ${options.scenarios?.join(' --scenario ') ?? 'notes-load --scenario learning-load'}` +
          ` --save-cost-baseline "${options.saveCostBaseline}"`,
        ...(options.costBaselineHarness !== undefined && { harness: options.costBaselineHarness }),
      },
      figures.baseline,
    );
    log(`${workload}: saved the cost figures in ${path}`);
  }
  return { figures, baselines: await readCostBaselines() };
};
