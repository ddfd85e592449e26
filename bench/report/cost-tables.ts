/**
 * What each operation of a load scenario costs: what the local server measured, today's model and the corrected
 * model (everything the request causes in AWS, by service), the mixed workload's cost per million requests, and
 * the corrected figures beside the committed baselines of earlier revisions.
 */
import type { CostBaseline, CostBreakdown } from '../cost-baseline.ts';
import {
  AWS_ASSUMPTIONS,
  type AwsAssumptions,
  CORRECTED_MODEL_NOTES,
  type CorrectedCost,
  type DeployedConsumers,
  eventsPerOperation,
  type MeasuredOperationCost,
  type ModelledCost,
  measuredCosts,
  modelCorrectedCost,
  modelCostPerMillion,
  PRICE_NOTES,
} from '../cost-model.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import type { HeadlineFigure, ReportSection } from '../scenario.ts';
import { median, percentile } from '../stats.ts';
import { pooled } from './load-tables.ts';
import { bullets, dollars, fixed, ms, passFail, table } from './markdown.ts';

/** The goal the issue sets for a mixed workload at 120/s: at most $5 per million requests, everything counted. */
const MIXED_WORKLOAD_GOAL_USD_PER_MILLION = 5;

const COST_MEASUREMENT_NOTE =
  'Measured by the local server over every request of the cost run — one more run at the fixed rate, its meter reading ' +
  'every engine request and answer, which the latency runs leave off (seeding, warm-up and one-at-a-time requests ' +
  'included — the same operations, so the averages hold): DynamoDB requests and the capacity units the engine reported ' +
  '(`ReturnConsumedCapacity: TOTAL`), the index write units it leaves out (computed), the events each operation committed, ' +
  'the key operations this one process made (its caches serve every operation), and, one request at a time, the handler ' +
  'time, the part of it not waiting on storage (CPU) and the storage round trips in sequence.';

export interface CostFigures {
  measured: MeasuredOperationCost[];
  today: Record<string, ModelledCost>;
  corrected: Record<string, CorrectedCost>;
  /** The mixed workload (each operation at its share of the runs' traffic), per million requests. */
  mix: { today: number; corrected: number };
  /** What `--save-cost-baseline` writes for this workload. */
  baseline: Pick<CostBaseline, 'operations' | 'workloads'>;
  /** Each operation's rate in the runs and the events per second they committed: what the model was priced at. */
  rates: Record<string, number>;
  eventsPerSecond: number;
  deployed: DeployedConsumers;
}

/** Prices every operation with both models at the rates the runs offered. */
export const costFigures = (
  runs: readonly FixedRateRun[],
  operations: readonly string[],
  workload: string,
  deployed: DeployedConsumers,
): CostFigures => {
  const measured = measuredCosts(
    runs.map((run) => run.costReport),
    operations,
    (run, operation) => runs[run]?.serviceTime[operation]?.latencies.length ?? 0,
  );
  const rateOf = (operation: string) =>
    median(
      runs.map(
        (run) =>
          (run.analysis.offeredRatePerSecond * (run.analysis.byOperation[operation]?.count ?? 0)) /
          Math.max(1, run.analysis.completed),
      ),
    );
  const rates = Object.fromEntries(operations.map((operation) => [operation, rateOf(operation)]));
  const eventsPerSecond = measured.reduce(
    (sum, cost) => sum + (rates[cost.operationId] ?? 0) * eventsPerOperation(cost),
    0,
  );
  const today: Record<string, ModelledCost> = {};
  const corrected: Record<string, CorrectedCost> = {};
  for (const cost of measured) {
    today[cost.operationId] = modelCostPerMillion(cost);
    corrected[cost.operationId] = modelCorrectedCost(
      cost,
      { operationPerSecond: rates[cost.operationId] ?? 0, eventsPerSecond },
      deployed,
    );
  }
  const totalRate = Object.values(rates).reduce((sum, rate) => sum + rate, 0);
  const mixOf = (pick: (operation: string) => number) =>
    totalRate === 0
      ? Number.NaN
      : operations.reduce((sum, operation) => sum + ((rates[operation] ?? 0) / totalRate) * pick(operation), 0);
  const mix = {
    today: mixOf((operation) => today[operation]?.total ?? Number.NaN),
    corrected: mixOf((operation) => corrected[operation]?.total ?? Number.NaN),
  };
  return {
    measured,
    today,
    corrected,
    mix,
    rates,
    eventsPerSecond,
    deployed,
    baseline: {
      operations: Object.fromEntries(
        operations.map((operation) => [
          operation,
          { today: today[operation]?.total ?? Number.NaN, corrected: breakdownOf(corrected[operation]) },
        ]),
      ),
      workloads: { [workload]: mix },
    },
  };
};

const breakdownOf = (cost: CorrectedCost | undefined): CostBreakdown => ({
  apiGateway: cost?.apiGateway ?? Number.NaN,
  lambda: cost?.lambda ?? Number.NaN,
  dynamoDb: cost?.dynamoDb ?? Number.NaN,
  kms: cost?.kms ?? Number.NaN,
  eventBridge: cost?.eventBridge ?? Number.NaN,
  eventFunctions: cost?.eventFunctions ?? Number.NaN,
  logs: cost?.logs ?? Number.NaN,
  xray: cost?.xray ?? Number.NaN,
  total: cost?.total ?? Number.NaN,
});

const SERVICES: readonly { key: keyof CostBreakdown; header: string }[] = [
  { key: 'apiGateway', header: 'API Gateway' },
  { key: 'lambda', header: 'Lambda (its function)' },
  { key: 'dynamoDb', header: 'DynamoDB' },
  { key: 'kms', header: 'KMS' },
  { key: 'eventBridge', header: 'EventBridge' },
  { key: 'eventFunctions', header: 'Lambda (relay, consumers)' },
  { key: 'logs', header: 'CloudWatch Logs' },
  { key: 'xray', header: 'X-Ray' },
];

/** The measured table: what the local server saw, per operation. */
const measuredTable = (runs: readonly FixedRateRun[], figures: CostFigures): string =>
  table(
    [
      'Operation',
      'Requests',
      'DynamoDB requests / op',
      'Read units / op',
      'Write units / op',
      'Index write units / op',
      'Events / op',
      'Key operations / op (this process)',
      'Handler p50 under load ms',
      'Handler p50 alone ms',
      'CPU alone ms',
      'Storage round trips',
    ],
    figures.measured.map((cost) => [
      cost.operationId,
      cost.requests,
      fixed(cost.storageRequestsPerOperation),
      fixed(cost.readUnitsPerOperation),
      fixed(cost.writeUnitsPerOperation),
      fixed(cost.corrected.engine.indexWriteUnits),
      fixed(eventsPerOperation(cost)),
      fixed(cost.keyOperationsPerOperation),
      ms(
        percentile(
          pooled(runs, (run) => run.handlerUnderLoad[cost.operationId]),
          50,
        ),
      ),
      ms(cost.handlerP50Milliseconds),
      ms(cost.corrected.cpuMilliseconds),
      fixed(cost.corrected.storageRoundTrips, 0),
    ]),
  );

/** Today's model, as the report had it. */
const todayTable = (figures: CostFigures): string =>
  table(
    ['Operation', 'Billed ms', 'API Gateway', 'Lambda requests', 'Lambda duration', 'DynamoDB', 'KMS', 'Total'],
    figures.measured.map(({ operationId }) => {
      const model = figures.today[operationId];
      return [
        operationId,
        model?.billedMilliseconds ?? '—',
        dollars(model?.apiGateway),
        dollars(model?.lambdaRequests),
        dollars(model?.lambdaDuration),
        dollars(model?.dynamoDb),
        dollars(model?.kms),
        `**${dollars(model?.total)}**`,
      ];
    }),
  );

/** The corrected model by service, with today's total beside it. */
const correctedTable = (figures: CostFigures): string =>
  table(
    ['Operation', ...SERVICES.map((service) => service.header), 'Total', "Today's model"],
    figures.measured.map(({ operationId }) => {
      const model = figures.corrected[operationId];
      return [
        operationId,
        ...SERVICES.map((service) => dollars(model?.[service.key])),
        `**${dollars(model?.total)}**`,
        dollars(figures.today[operationId]?.total),
      ];
    }),
  );

/** What the corrected figures rest on, per operation. */
const factsTable = (figures: CostFigures): string =>
  table(
    [
      'Operation',
      'Billed ms (AWS)',
      'Write units',
      'of them index writes',
      'Read units',
      'KMS calls',
      'Events',
      'Consumer invocations',
      'Relay invocations',
      'Log bytes',
      'Traces',
    ],
    figures.measured.map(({ operationId }) => {
      const facts = figures.corrected[operationId]?.facts;
      return [
        operationId,
        facts?.billedMilliseconds ?? '—',
        fixed(facts?.writeUnits === undefined ? undefined : facts.writeUnits + facts.indexWriteUnits),
        fixed(facts?.indexWriteUnits),
        fixed(facts?.readUnits),
        fixed(facts?.kmsCalls, 3),
        fixed(facts?.events),
        fixed(facts?.consumerInvocations),
        fixed(facts?.relayInvocations, 3),
        fixed(facts?.logBytes, 0),
        fixed(facts?.traces, 3),
      ];
    }),
  );

/** "At 120/s …": the mixed workload against the goal. */
const mixSentence = (figures: CostFigures, ratePerSecond: number, mixText: string): string =>
  `The mixed workload at ${ratePerSecond}/s (${mixText}) costs **${dollars(figures.mix.corrected)} per million requests** with ` +
  `everything counted (today's model: ${dollars(figures.mix.today)}); the goal is at most $${MIXED_WORKLOAD_GOAL_USD_PER_MILLION}: ` +
  `${passFail(figures.mix.corrected <= MIXED_WORKLOAD_GOAL_USD_PER_MILLION)}.`;

/**
 * "Cost per million: before / after": each operation's corrected total in every committed baseline and now, then
 * what changed since the oldest, by service.
 */
const beforeAfterSection = (
  figures: CostFigures,
  baselines: readonly CostBaseline[],
  workload: string,
  workloadLabel: string,
): string | undefined => {
  const relevant = baselines.filter((baseline) =>
    figures.measured.some(({ operationId }) => baseline.operations[operationId] !== undefined),
  );
  const [oldest] = relevant;
  if (oldest === undefined) return undefined;
  const labels = relevant.map((_, index) => String.fromCharCode(65 + index));
  const change = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined || !Number.isFinite(before) || before === 0
      ? '—'
      : `${(((after - before) / before) * 100).toFixed(0)}%`;
  const rows = [
    ...figures.measured.map(({ operationId }) => {
      const now = figures.corrected[operationId]?.total;
      return [
        operationId,
        ...relevant.map((baseline) => dollars(baseline.operations[operationId]?.corrected.total)),
        `**${dollars(now)}**`,
        change(oldest.operations[operationId]?.corrected.total, now),
      ];
    }),
    [
      `${workloadLabel} (per request)`,
      ...relevant.map((baseline) => dollars(baseline.workloads[workload]?.corrected)),
      `**${dollars(figures.mix.corrected)}**`,
      change(oldest.workloads[workload]?.corrected, figures.mix.corrected),
    ],
  ];
  const deltaRows = figures.measured.map(({ operationId }) => {
    const before = oldest.operations[operationId]?.corrected;
    const now = figures.corrected[operationId];
    const delta = (key: keyof CostBreakdown) =>
      before === undefined || now === undefined ? '—' : signedDollars(now[key] - before[key]);
    return [operationId, ...SERVICES.map((service) => delta(service.key)), delta('total')];
  });
  return [
    'Corrected model, US dollars per million operations, now and in each committed baseline (`bench/baselines/cost-per-million.*.json`, ' +
      'written by `--save-cost-baseline` with this bench and meter at the revision it stands for):',
    '',
    ...relevant.map(
      (baseline, index) =>
        `- **${labels[index]}** — ${baseline.name}: measured at \`${baseline.revision}\` (${baseline.measuredAt.slice(0, 10)}, ` +
        `\`${baseline.command}\`${baseline.harness ? `; ${baseline.harness}` : ''}).`,
    ),
    '',
    table(['Operation', ...labels.map((label) => `Before: ${label}`), 'After: now', `Change since ${labels[0]}`], rows),
    '',
    `Where the change since ${labels[0]} came from, by service (now minus ${labels[0]}):`,
    '',
    table(['Operation', ...SERVICES.map((service) => service.header), 'Total'], deltaRows),
  ].join('\n');
};

/** "+$0.141", "−$2.918"; a change under a hundredth of a cent shows as none. */
const signedDollars = (value: number): string =>
  Number.isNaN(value) ? '—' : Math.abs(value) < 0.0001 ? '$0' : `${value < 0 ? '−' : '+'}${dollars(Math.abs(value))}`;

/** The notes under the cost tables: prices, then how the corrected model works. */
const costNotes = (extra: readonly string[] = []): string =>
  bullets([...PRICE_NOTES, ...CORRECTED_MODEL_NOTES, ...extra]);

/** Changes that would lower the bill, each priced with the same run by the corrected model. */
const LEVERS: readonly {
  readonly label: string;
  readonly assumptions?: Partial<AwsAssumptions>;
  /** A consumer of its own for every kind with heads (journal kinds have none), as the head projection was. */
  readonly withHeadConsumer?: boolean;
}[] = [
  { label: 'As deployed' },
  AWS_ASSUMPTIONS.platformLogLines
    ? {
        label: "Lambda's START, END and REPORT lines not logged (JSON log format, system log level WARN)",
        assumptions: { platformLogLines: false },
      }
    : {
        label: "Lambda's START, END and REPORT lines logged (system log level INFO), as before this change",
        assumptions: { platformLogLines: true },
      },
  {
    label: 'The head projection a bus consumer of its own, as before the relay ran it',
    withHeadConsumer: true,
  },
  AWS_ASSUMPTIONS.requestTracing
    ? { label: 'Request functions tracing pass-through (their caller sampled)', assumptions: { requestTracing: false } }
    : {
        label: 'Request functions tracing actively (`requestTracing: active`), as before this change',
        assumptions: { requestTracing: true },
      },
  { label: 'No active tracing anywhere', assumptions: { requestTracing: false, backgroundTracing: false } },
];

/** The record kinds of the measured events that keep a head (not journal kinds). */
const kindsWithHeads = (figures: CostFigures): string[] => [
  ...new Set(
    figures.measured.flatMap((measured) =>
      Object.keys(measured.corrected.eventsByKind).filter((kind) => !figures.deployed.journalKinds.includes(kind)),
    ),
  ),
];

/** The mixed workload's cost per million requests under each lever, from the same measurements. */
const leversTable = (figures: CostFigures): string => {
  const totalRate = Object.values(figures.rates).reduce((sum, rate) => sum + rate, 0);
  const mixUnder = (lever: (typeof LEVERS)[number]) => {
    const assumptions = { ...AWS_ASSUMPTIONS, ...lever.assumptions };
    const deployed = {
      ...figures.deployed,
      consumers: [
        ...figures.deployed.consumers,
        ...(lever.withHeadConsumer ? [{ name: 'head-projection', recordKinds: kindsWithHeads(figures) }] : []),
      ],
    };
    return figures.measured.reduce((sum, measured) => {
      const rate = figures.rates[measured.operationId] ?? 0;
      const priced = modelCorrectedCost(
        measured,
        { operationPerSecond: rate, eventsPerSecond: figures.eventsPerSecond },
        deployed,
        assumptions,
      );
      return sum + (totalRate === 0 ? Number.NaN : (rate / totalRate) * priced.total);
    }, 0);
  };
  const asDeployed = figures.mix.corrected;
  return table(
    ['Change', 'Mixed workload per million requests', 'Saving'],
    LEVERS.map((lever) => {
      const mix = mixUnder(lever);
      return [
        lever.label,
        dollars(mix),
        lever.assumptions || lever.withHeadConsumer ? signedDollars(mix - asDeployed) : '—',
      ];
    }),
    ['left', 'right', 'right'],
  );
};

/** A load scenario's workload as its cost section and headline name it. */
export interface CostWorkload {
  /** Its key in the cost baselines' `workloads` (`notes`, `learning`). */
  readonly key: string;
  /** "Notes mix at 120/s": the workload's row in the before/after table, and its headline figure. */
  readonly label: string;
  /** "create 25% / get 35% / …", for the sentence on the mixed workload. */
  readonly mix: string;
  readonly ratePerSecond: number;
}

/**
 * A load scenario's cost section: what the server measured (and `measuredText`, the scenario's words on it), the
 * corrected model by service, the mixed workload against the goal, what the figures rest on, the levers, today's
 * model, the committed baselines under `beforeAfterHeading`, then the notes (and `extraNotes`).
 */
export const costSection = (section: {
  readonly title: string;
  readonly runs: readonly FixedRateRun[];
  readonly figures: CostFigures;
  readonly baselines: readonly CostBaseline[];
  readonly workload: CostWorkload;
  readonly measuredText?: string;
  readonly beforeAfterHeading: string;
  readonly extraNotes?: readonly string[];
}): ReportSection => {
  const { figures, workload } = section;
  const beforeAfter = beforeAfterSection(figures, section.baselines, workload.key, workload.label);
  return {
    title: section.title,
    body: [
      COST_MEASUREMENT_NOTE,
      '',
      measuredTable(section.runs, figures),
      '',
      ...(section.measuredText === undefined ? [] : [section.measuredText, '']),
      'Modelled AWS cost, **US dollars per million operations**, everything each operation causes (corrected model), by service:',
      '',
      correctedTable(figures),
      '',
      mixSentence(figures, workload.ratePerSecond, workload.mix),
      '',
      'What the corrected figures rest on, per operation:',
      '',
      factsTable(figures),
      '',
      'What would lower it, each change priced by the corrected model from the same measurements (for the owners of ' +
        'the logging, event and tracing set-up to weigh):',
      '',
      leversTable(figures),
      '',
      "Today's model (the work inside the request only, the local handler p50 as the duration), for comparison:",
      '',
      todayTable(figures),
      ...(beforeAfter ? ['', section.beforeAfterHeading, '', beforeAfter] : []),
      '',
      costNotes(section.extraNotes),
    ].join('\n'),
  };
};

/** The headline's cost figures: each operation's, both models, then the mixed workload against the goal. */
export const costHeadline = (
  figures: CostFigures,
  operations: readonly string[],
  workload: CostWorkload,
): HeadlineFigure[] => [
  ...operations.map((operation) => ({
    label: `${operation} modelled AWS cost, everything counted (today's model)`,
    value: `${dollars(figures.corrected[operation]?.total)} (${dollars(figures.today[operation]?.total)}) per million`,
  })),
  {
    label: `${workload.label}, cost per million requests (≤ $${MIXED_WORKLOAD_GOAL_USD_PER_MILLION})`,
    value: dollars(figures.mix.corrected),
    pass: figures.mix.corrected <= MIXED_WORKLOAD_GOAL_USD_PER_MILLION,
  },
];
