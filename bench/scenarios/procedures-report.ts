/** The procedures-load scenario's sections and headline figures. */
import type { BenchOptions } from '../bench-options.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import {
  NODES_PER_TASK,
  PROCEDURES_MIX,
  PROCEDURES_OPERATION_KIND,
  PROCEDURES_OPERATIONS,
  type ProceduresOperation,
  type TeamShape,
} from '../load/procedures-workload.ts';
import type { HeadlineFigure, ScenarioResult } from '../scenario.ts';
import { median } from '../stats.ts';
import { POOL_RETRIEVAL_P95_BUDGET_MS, type PoolRetrieval, PROCEDURES_BUDGET } from './procedures-budget.ts';

const ms = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(1));
const percent = (share: number) => `${Math.round(share * 100)}%`;

export const proceduresLoadReport = (
  options: BenchOptions,
  shape: TeamShape,
  runs: readonly FixedRateRun<ProceduresOperation>[],
  retrieval: PoolRetrieval,
): ScenarioResult => {
  const { ratePerSecond, durationSeconds } = options.load;
  const p95Of = (operation: ProceduresOperation) =>
    median(runs.map((run) => run.analysis.byOperation[operation]?.p95 ?? Number.NaN));
  const errors = runs.reduce((sum, run) => sum + run.analysis.errors, 0);
  const headline: HeadlineFigure[] = PROCEDURES_OPERATIONS.map((operation) => {
    const kind = PROCEDURES_OPERATION_KIND[operation];
    const budget = PROCEDURES_BUDGET.p95ByOperation[operation] as number;
    const p95 = p95Of(operation);
    return {
      label: `Procedures: ${operation} p95 at ${ratePerSecond}/s (${kind}, ≤ ${budget} ms)`,
      value: `${ms(p95)} ms`,
      pass: p95 <= budget,
    };
  });
  headline.push({
    label: `Procedures: errors at ${ratePerSecond}/s (all runs)`,
    value: String(errors),
    pass: errors === 0,
  });
  headline.push({
    label: `Procedure retrieval p95 over a pool of ${retrieval.pool.toLocaleString('en')} (≤ ${POOL_RETRIEVAL_P95_BUDGET_MS} ms)`,
    value: `${ms(retrieval.warm.p95)} ms`,
    pass: retrieval.warm.p95 <= POOL_RETRIEVAL_P95_BUDGET_MS && retrieval.errors === 0,
  });

  const mix = PROCEDURES_OPERATIONS.map((operation) => `${operation} ${percent(PROCEDURES_MIX[operation])}`).join(
    ' / ',
  );
  const runTables = runs
    .map((run) => {
      const rows = PROCEDURES_OPERATIONS.map((operation) => {
        const figures = run.analysis.byOperation[operation];
        return `| ${operation} | ${figures?.count ?? 0} | ${ms(figures?.p50)} | ${ms(figures?.p95)} | ${ms(figures?.p99)} | ${ms(figures?.max)} | ${figures?.errors ?? 0} |`;
      });
      return [
        `Run ${run.index + 1}: achieved ${run.analysis.achievedRatePerSecond.toFixed(1)}/s, server CPU ${run.serverCpuShare === undefined ? '—' : percent(run.serverCpuShare)} of a core, ${run.verdict.held ? 'held' : `did not hold (${run.verdict.reasons.join('; ')})`}.`,
        '',
        '| Operation | Requests | p50 ms | p95 ms | p99 ms | Max ms | Errors |',
        '| :-- | --: | --: | --: | --: | --: | --: |',
        ...rows,
      ].join('\n');
    })
    .join('\n\n');
  const mixBody = [
    `${runs.length} run(s) × ${durationSeconds} s at ${ratePerSecond} arrivals/s (open loop), each on a fresh server: ${shape.tenants} tenants, each with one project, its manager and ${Math.round(shape.agents / shape.tenants)} agents (${shape.agents} in all); ${shape.tasks.toLocaleString('en')} open tasks of ${NODES_PER_TASK} nodes assigned round-robin to the project's agents, and ${shape.proceduresPerProject} procedures per project. Mix: ${mix}. Each request is an agent's on a task it has a node in: blackboard entries against its own node, state evidence (half tool observations, half inferences), the task, its feed's first page of 20, its resolved state, and procedure retrieval. Latency from the scheduled arrival to the last byte; the headline takes the median of the runs' p95s. Budget: reads p95 ≤ ${PROCEDURES_BUDGET.p95ByOperation.getTask} ms, writes ≤ ${PROCEDURES_BUDGET.p95ByOperation.appendTaskRecord} ms, no errors.`,
    '',
    runTables,
  ].join('\n');
  const poolBody = [
    `One project's pool of ${retrieval.pool.toLocaleString('en')} procedures (four steps each, a fifth of them with a context condition), created through \`POST …/procedures\` (8 at a time, ${retrieval.seedSeconds.toFixed(0)} s), then \`POST …/procedures/retrieve\` one request at a time by the manager: the first on the server (it lists and decrypts the whole pool into the function's cache), 20 unmeasured, then ${retrieval.warm.count} measured, queries with and without cues and facts (up to ${retrieval.candidates.toLocaleString('en')} candidates ranked per query; every hit re-read from its head before it is shown).`,
    '',
    '| Pool | First retrieval ms | p50 ms | p95 ms | p99 ms | Max ms | Errors | p95 budget |',
    '| --: | --: | --: | --: | --: | --: | --: | :-- |',
    `| ${retrieval.pool.toLocaleString('en')} | ${ms(retrieval.firstMs)} | ${ms(retrieval.warm.p50)} | ${ms(retrieval.warm.p95)} | ${ms(retrieval.warm.p99)} | ${ms(retrieval.warm.max)} | ${retrieval.errors} | ≤ ${POOL_RETRIEVAL_P95_BUDGET_MS} ms ${retrieval.warm.p95 <= POOL_RETRIEVAL_P95_BUDGET_MS ? 'pass' : '**FAIL**'} |`,
  ].join('\n');
  return {
    sections: [
      { title: `Procedural memory: the team mix at ${ratePerSecond}/s`, body: mixBody },
      { title: 'Procedural memory: retrieval over one pool', body: poolBody },
    ],
    headline,
    raw: {
      shape,
      runs: runs.map((run) => ({ index: run.index, analysis: run.analysis, verdict: run.verdict })),
      retrieval,
    },
    methodNotes: [
      'procedures-load seeds each fixed-rate run on a fresh server (tasks and procedures created by each project’s manager through the API); the pool retrieval runs on a server of its own afterwards.',
    ],
  };
};
