/** The learning-load scenario's figures as report sections, headline figures and method notes. */
import type { BenchOptions } from '../bench-options.ts';
import type { CostBaseline } from '../cost-baseline.ts';
import { eventsPerOperation } from '../cost-model.ts';
import type { CeilingResult } from '../load/ceiling-search.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import {
  AGENTS,
  APPEND_SHARE,
  EVENTS_PER_SESSION,
  LEARNING_OPERATIONS,
  type LearningObservation,
  type LearningOperation,
  ORGANISATION_GUARDRAILS,
  SESSIONS_PER_PRINCIPAL,
  SIGNAL_KEYS,
  SIGNAL_SHARE,
  STATEMENT_SHARE,
} from '../load/learning-workload.ts';
import type { LatencyBudget } from '../load/phase-analysis.ts';
import { type CostFigures, type CostWorkload, costHeadline, costSection } from '../report/cost-tables.ts';
import {
  ceilingProcedure,
  ceilingTable,
  ceilingText,
  cpuPerRequest,
  latencyTable,
  medianOfRuns,
  perRunSection,
  type ReportedOperation,
  rawRun,
  runsIntro,
  runsSummary,
  totalErrors,
} from '../report/load-tables.ts';
import { fixed, ms, percent } from '../report/markdown.ts';
import type { HeadlineFigure, ReportSection, ScenarioResult } from '../scenario.ts';
import { median } from '../stats.ts';
import { MINIMUM_ACHIEVED_SHARE, READ_P95_BUDGET_MS, WRITE_P95_BUDGET_MS } from './notes-budget.ts';

export interface LearningRun extends FixedRateRun<LearningOperation> {
  /** Per response of the measured phase, on average: what appends touched and applied views held. */
  observed: Record<LearningObservation, number>;
}

/** The issue's acceptance criterion, DESIGN.md §11's budgets: append p95 ≤ 60 ms, applied view p95 ≤ 40 ms. */
const REPORTED: readonly (ReportedOperation & { name: string })[] = [
  {
    id: 'appendSessionEvent',
    name: 'append',
    label: 'append — POST /v1/sessions/{sessionId}/events',
    kind: 'write',
    p95BudgetMs: WRITE_P95_BUDGET_MS,
  },
  {
    id: 'getAppliedMemory',
    name: 'applied view',
    label: 'applied view — GET /v1/applied?agent=…',
    kind: 'read',
    p95BudgetMs: READ_P95_BUDGET_MS,
  },
];

export const LEARNING_BUDGET: LatencyBudget = {
  p95ByOperation: Object.fromEntries(REPORTED.map((operation) => [operation.id, operation.p95BudgetMs])),
  minimumAchievedShare: MINIMUM_ACHIEVED_SHARE,
};

const share = (fraction: number): string => `${Math.round(fraction * 100)}%`;

/** What the responses held, per run or as the median across runs. */
const responsesText = (observed: (name: LearningObservation) => number): string =>
  `an append touched ${fixed(observed('beliefsTouched'))} beliefs (${fixed(observed('matureBeliefs'))} of them mature, ` +
  `${fixed(observed('withheld'))} candidates withheld); an applied view held ${fixed(observed('appliedValues'), 1)} values ` +
  `and ${fixed(observed('clamps'))} clamps`;

const loadSection = (options: BenchOptions, runs: readonly LearningRun[]): ReportSection => {
  const { ratePerSecond } = options.load;
  return {
    title: `Learned memory at ${ratePerSecond}/s`,
    body: [
      `${runsIntro(options, runs)}; mix append ${share(APPEND_SHARE)} / applied view ${share(1 - APPEND_SHARE)}. ` +
        `Of the appends, ${share(SIGNAL_SHARE)} are behavioural signals (${SIGNAL_KEYS.length} recurring preference keys with 2–3 values each), ` +
        `${share(STATEMENT_SHARE)} structured profile statements and ${share(1 - SIGNAL_SHARE - STATEMENT_SHARE)} free-text messages. ` +
        'Draft and merge run inside the append request: its latency includes extracting the candidate rules and merging each into ' +
        'its belief. Latency is client-side, from the scheduled arrival to the last byte of the response; percentiles are the median ' +
        `across runs of each run's figure.`,
      '',
      latencyTable(runs, REPORTED),
      '',
      runsSummary(runs, ratePerSecond),
      '',
      `Responses (median across runs of each run's mean): ${responsesText((name) => median(runs.map((run) => run.observed[name])))}.`,
    ].join('\n'),
  };
};

const ceilingSection = (options: BenchOptions, result: CeilingResult): ReportSection => ({
  title: 'Learned memory — throughput ceiling',
  body: [
    ceilingProcedure(
      options.learningCeiling,
      REPORTED.map((operation) => `${operation.name} ≤ ${operation.p95BudgetMs} ms`).join(', '),
      MINIMUM_ACHIEVED_SHARE,
    ),
    '',
    `Highest sustainable rate: **${ceilingText(result)}**.`,
    '',
    ceilingTable(result.steps, LEARNING_OPERATIONS),
  ].join('\n'),
});

/** The learning workload as the cost section and the headline name it. */
const costWorkload = (options: BenchOptions): CostWorkload => ({
  key: 'learning',
  label: `Learned-memory mix at ${options.load.ratePerSecond}/s`,
  mix: `append ${share(APPEND_SHARE)} / applied view ${share(1 - APPEND_SHARE)}`,
  ratePerSecond: options.load.ratePerSecond,
});

/** What an append and an applied view do, with the measured figures the reader checks it by. */
const operationsText = (figures: CostFigures): string => {
  const [append, applied] = figures.measured;
  return (
    'An append writes several items. It stores the event (encrypted: a revision item that carries the outbox entry, then its ' +
    'head item) and folds each candidate rule the extractors draft into its belief: it reads the belief, then writes the next ' +
    'revision and moves the head. A signal or a structured statement drafts one candidate, a message none; the first write to ' +
    'a partition (a new session, a new agent) also enters it in the namespace directory, once per process. Measured: ' +
    `**${fixed(append?.storageRequestsPerOperation)} DynamoDB requests, ${fixed(append?.writeUnitsPerOperation)} write units ` +
    `(and ${fixed(append?.corrected.engine.indexWriteUnits)} index write units) and ${fixed(eventsPerOperation(append))} events per append**. ` +
    "The applied view reads the mature beliefs of three partitions (profile, preferences, the agent's own " +
    "preferences) and the organisation's guardrails, and writes an audit entry the first time in a day a caller is served a " +
    `given clamp: ${fixed(applied?.storageRequestsPerOperation)} DynamoDB requests per view.`
  );
};

const methodNotes = (options: BenchOptions): string[] => [
  'Learned memory: each principal favours its own keys, values and agent (weights 1, 1/2, 1/3, … over a ranking rotated by ' +
    `principal) and moves to the next of its ${SESSIONS_PER_PRINCIPAL} sessions every ${EVENTS_PER_SESSION} events, so beliefs are ` +
    'confirmed across sessions, compete between values and mature (by default 3 confirmations from 2 sessions). Signals name one ' +
    `of ${AGENTS.length} agents (${AGENTS.join(', ')}); applied views ask for one, drawn the same way. Appends carry no Idempotency-Key.`,
  "Before each learned-memory run, each tenant's organisation admin sets guardrails on " +
    `${Object.keys(ORGANISATION_GUARDRAILS)
      .map((key) => `\`${key}\``)
      .join(' and ')} (an enum without "long", a range of 1–20), so values the signals teach are clamped; then every ` +
    'principal is seeded (8 principals at a time) with 8 events: its two favourite keys signalled three times over two sessions ' +
    '(mature), a third once (provisional) and a declared time zone (mature at once). ' +
    `Then ${options.load.warmupSeconds} s of unmeasured traffic at the same rate.`,
  'Draft and merge are synchronous: inside the append request the deterministic extractors draft candidate rules from the event, ' +
    'each is screened for personal identifiers and secrets, then merged into its belief with a write conditional on the revision ' +
    'it was computed from (in one process the merges of one belief queue up; a write lost to another process re-reads and merges ' +
    'again). The belief synthesis workflow (daily) does not run during the measured phase.',
  'The learned-memory ceiling search starts low and climbs slowly because this workload costs the server far more CPU per ' +
    'request than notes; its steps share one server seeded like the fixed-rate runs, so beliefs and session events keep ' +
    'accumulating from step to step as in one longer run.',
];

export const learningLoadReport = (
  options: BenchOptions,
  runs: readonly LearningRun[],
  ceiling: CeilingResult,
  costs: { figures: CostFigures; baselines: readonly CostBaseline[]; run: LearningRun },
): ScenarioResult => {
  const { ratePerSecond } = options.load;
  const { figures } = costs;
  const headline: HeadlineFigure[] = REPORTED.map((operation) => {
    const { p95 } = medianOfRuns(runs, operation.id);
    return {
      label: `Learned memory: ${operation.name} p95 at ${ratePerSecond}/s (≤ ${operation.p95BudgetMs} ms)`,
      value: `${ms(p95)} ms`,
      pass: p95 <= operation.p95BudgetMs,
    };
  });
  const errors = totalErrors(runs);
  headline.push(
    { label: `Learned memory: errors at ${ratePerSecond}/s (all runs)`, value: String(errors), pass: errors === 0 },
    {
      label: 'Learned memory: highest rate within budget',
      value: ceilingText(ceiling),
      pass: ceiling.sustainable >= ratePerSecond,
    },
    {
      label: `Learned memory: server process CPU at ${ratePerSecond}/s (share of a core; per request)`,
      value: `${percent(median(runs.map((run) => run.serverCpuShare ?? Number.NaN)))}; ${ms(median(runs.map(cpuPerRequest)))} ms`,
    },
    ...costHeadline(
      figures,
      REPORTED.map((operation) => operation.id),
      costWorkload(options),
    ),
  );
  return {
    sections: [
      loadSection(options, runs),
      perRunSection(
        'Learned memory — per-run detail',
        runs,
        LEARNING_OPERATIONS,
        (run) =>
          `Responses: ${responsesText((name) => run.observed[name])}; setup (server start, seeding, warm-up) ${run.setupSeconds.toFixed(1)} s`,
      ),
      ceilingSection(options, ceiling),
      costSection({
        title: 'Learned memory — cost per operation',
        runs: [costs.run],
        figures,
        baselines: costs.baselines,
        workload: costWorkload(options),
        measuredText: operationsText(figures),
        beforeAfterHeading: '### Learned memory — cost per million: before / after',
      }),
    ],
    headline,
    methodNotes: methodNotes(options),
    raw: { runs: runs.map(rawRun), costRun: rawRun(costs.run), ceiling },
  };
};
