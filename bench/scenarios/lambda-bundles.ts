/** Each Lambda bundle's size and cold initialisation time, as a report section. */

import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAMBDA_BUNDLE_BUDGET_BYTES } from '../../lib/lambda-bundling.ts';
import { BASELINE_DIR } from '../baseline-files.ts';
import type { BenchOptions } from '../bench-options.ts';
import { type BundleBaseline, baselineOf, readBundleBaselines, writeBundleBaseline } from '../bundle-baseline.ts';
import { type BundleMeasurement, COLD_INIT_ENVIRONMENT, measureBundles } from '../lambda-bundles.ts';
import { kib, ms, passFail, table } from '../report/markdown.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';

/** The goal for a cold start: initialisation in a fresh process within 150 ms (on this machine's CPU). */
export const COLD_INIT_BUDGET_MS = 150;

/** Whether a bundle is within both budgets: its size (`LAMBDA_BUNDLE_BUDGET_BYTES`) and its cold init. */
const withinBudget = (bundle: BundleMeasurement): boolean =>
  bundle.failure === undefined &&
  bundle.bytes <= LAMBDA_BUNDLE_BUDGET_BYTES &&
  bundle.importMedian <= COLD_INIT_BUDGET_MS;

export const lambdaBundlesScenario: Scenario = {
  name: 'lambda-bundles',
  async run(options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> {
    log('lambda-bundles: building each entry with lib/lambda-bundling.ts and timing cold imports');
    // Outside the project: Biome lints every file under bench/, bundles included.
    const outDir = join(tmpdir(), 'memory-hub-bench-bundles');
    const bundles = await measureBundles({ outDir, runs: options.coldInitRuns }, log);
    if (options.saveBundleBaseline !== undefined) {
      const path = await writeBundleBaseline(
        {
          name: options.saveBundleBaseline,
          revision: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
          measuredAt: new Date().toISOString(),
          command: `npm run bench -- --scenario lambda-bundles --save-bundle-baseline "${options.saveBundleBaseline}"`,
        },
        bundles,
      );
      log(`lambda-bundles: saved the figures as ${path}`);
    }
    const comparison = await comparisonSection(bundles);
    const rows = bundles.map((bundle) => {
      if (bundle.failure !== undefined)
        return [
          `\`${bundle.entry}\``,
          bundle.handlers.join(', '),
          '—',
          '—',
          '—',
          '—',
          '—',
          '—',
          '**FAIL**',
          `**failed:** ${bundle.failure}`,
        ];
      const missing = bundle.handlers.filter((handler) => !bundle.exports.includes(handler));
      return [
        `\`${bundle.entry}\``,
        bundle.handlers.join(', ') + (missing.length > 0 ? ` (**not exported: ${missing.join(', ')}**)` : ''),
        `${bundle.bytes.toLocaleString('en-US')} B (${kib(bundle.bytes)})`,
        kib(bundle.gzipBytes),
        ms(bundle.importMedian),
        `${ms(Math.min(...bundle.importMilliseconds))}–${ms(Math.max(...bundle.importMilliseconds))}`,
        ms(bundle.processMedian),
        bundle.awsCallsAtInit.length === 0 ? 'none' : bundle.awsCallsAtInit.map((call) => `\`${call}\``).join(', '),
        passFail(withinBudget(bundle)),
        bundle.largestPackages.map((entry) => `${entry.name} ${kib(entry.bytes)}`).join(', '),
      ];
    });
    const environment = Object.entries(COLD_INIT_ENVIRONMENT)
      .map(([name, value]) => `\`${name}=${value}\``)
      .join(', ');
    const body = [
      'Bundled with esbuild using `lambdaEsbuildOptions` from `lib/lambda-bundling.ts` — the options the CDK app deploys with ' +
        '(ESM, node24, minified, every dependency including `@aws-sdk/*` bundled). Init = `await import(bundle)` in a fresh ' +
        `Node process (median of ${options.coldInitRuns}, after one unmeasured import to warm the page cache), with ${environment}, ` +
        'dummy AWS credentials in the environment (as Lambda provides them) and `AWS_ENDPOINT_URL` pointing every AWS client at a ' +
        'loopback stub that answers SSM GetParameter with the default configuration: AWS calls made during init are listed, and each ' +
        'costs a real network round trip in AWS that is not in these figures. "Process" adds Node\'s own start-up (spawn to exit). ' +
        'One function per handler is deployed from each bundle, so every handler of an entry has the same size and init. ' +
        `Bundles are left in \`${outDir}\` for inspection. Budget: at most ${LAMBDA_BUNDLE_BUDGET_BYTES.toLocaleString('en-US')} B ` +
        `(\`LAMBDA_BUNDLE_BUDGET_BYTES\`, which \`test/infra/lambda-bundling.test.ts\` also holds every entry to) and an init ` +
        `median within ${COLD_INIT_BUDGET_MS} ms.`,
      '',
      table(
        [
          'Entry',
          'Handlers (one function each)',
          'Size',
          'gzip',
          'Init median ms',
          'Init range ms',
          'Process median ms',
          'AWS calls at init',
          'Budget',
          'Largest packages',
        ],
        rows,
        ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left', 'left', 'left'],
      ),
    ].join('\n');
    return {
      sections: [{ title: 'Lambda bundles', body }, ...(comparison ? [comparison] : [])],
      headline: bundles.map((bundle) => ({
        label: `Bundle ${bundle.entry.split('/').pop()} (≤ ${LAMBDA_BUNDLE_BUDGET_BYTES.toLocaleString('en-US')} B, init ≤ ${COLD_INIT_BUDGET_MS} ms)`,
        value:
          bundle.failure === undefined
            ? `${bundle.bytes.toLocaleString('en-US')} B, init ${ms(bundle.importMedian)} ms`
            : 'failed',
        pass: withinBudget(bundle),
      })),
      methodNotes: [
        "Bundle init is measured on this machine's CPU, not on a Lambda arm64 sandbox at 512 MB (which gets a fraction of a vCPU); " +
          'treat it as a relative figure for comparing bundles over time.',
        "The bundles carry no X-Ray SDK: traces come from Lambda's active tracing alone, which records each invocation's segment " +
          "(init, invocation, errors), while the SDK's calls pass the trace header on to the bus and the consumers. The Powertools " +
          'tracer it replaces added aws-xray-sdk-core, semver and cls-hooked (≈ 125 KB) to every entry, a subsegment per SDK call, ' +
          "and the SDK error messages on them. The bundles sign with the environment's credentials (or a container endpoint's): " +
          "`lib/lambda-bundling.ts` swaps the SDK's default credential chain and the STS/SSO clients it brings (≈ 135 KB) for " +
          '`lambdas/adapters/lambda-credential-provider.ts`.',
      ],
      raw: bundles,
    };
  },
};

/**
 * Each entry beside the baseline bundles its handlers were deployed from, oldest baseline first (entries move
 * and regroup; handlers stay).
 */
const comparisonSection = async (bundles: readonly BundleMeasurement[]) => {
  const baselines = await readBundleBaselines();
  const [oldest] = baselines;
  if (oldest === undefined) return undefined;
  const labels = baselines.map((_, index) => String.fromCharCode(65 + index));
  /** The baseline bundles a current bundle's handlers came from (several when the entry gathers handlers). */
  const sourcesOf = (bundle: BundleMeasurement, baseline: BundleBaseline) => [
    ...new Set(bundle.handlers.map((handler) => baselineOf(baseline, handler)).filter((found) => found !== undefined)),
  ];
  const rows = bundles.flatMap((bundle) => {
    if (bundle.failure !== undefined) return [];
    const sources = baselines.map((baseline) => sourcesOf(bundle, baseline));
    const [first] = sources[0] ?? [];
    const sizes = sources.map((found) => (found.length === 0 ? 'new' : found.map((one) => kib(one.bytes)).join(' / ')));
    const inits = sources.map((found) =>
      found.length === 0 ? '—' : found.map((one) => ms(one.importMedian)).join(' / '),
    );
    return [
      [
        `\`${bundle.entry}\``,
        bundle.handlers.join(', '),
        first === undefined ? 'new' : (sources[0] ?? []).map((found) => `\`${found.entry}\``).join(', '),
        ...sizes,
        kib(bundle.bytes),
        first === undefined ? '—' : `${(((bundle.bytes - first.bytes) / first.bytes) * 100).toFixed(0)}%`,
        ...inits,
        ms(bundle.importMedian),
      ],
    ];
  });
  const legend = baselines.map(
    (baseline, index) =>
      `- **${labels[index]}** — ${baseline.name}: measured at \`${baseline.revision}\` (${baseline.measuredAt.slice(0, 10)}, ` +
      `\`${baseline.command}\`, median of ${baseline.bundles[0]?.importMilliseconds.length ?? 0} cold imports).`,
  );
  return {
    title: `Lambda bundles: now and ${baselines.map((baseline) => baseline.name).join(', ')}`,
    body: [
      `Each baseline was measured by the same scenario at the revision it stands for and is kept in \`${BASELINE_DIR}/\`. ` +
        'Handlers are matched by export name: each is one function, whichever entry it is bundled from.',
      '',
      ...legend,
      '',
      table(
        [
          'Entry now',
          'Handlers',
          `Entry in ${labels[0]}`,
          ...labels.map((label) => `Size ${label}`),
          'Size now',
          `Change since ${labels[0]}`,
          ...labels.map((label) => `Init ${label} ms`),
          'Init now ms',
        ],
        rows,
        [
          'left',
          'left',
          'left',
          ...labels.map(() => 'right' as const),
          'right',
          'right',
          ...labels.map(() => 'right' as const),
          'right',
        ],
      ),
    ].join('\n'),
  };
};
