/**
 * `npm run bench`: the Memory Hub benchmark. Runs each scenario in turn and writes BENCHMARKS.md
 * (`-- --quick` for a short development run that never touches BENCHMARKS.md). See BENCHMARKS.md for figures.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { type BenchOptions, parseBenchOptions } from './bench-options.ts';
import { describeMachine } from './machine-info.ts';
import { renderBenchmarks } from './report/benchmarks-markdown.ts';
import { bullets } from './report/markdown.ts';
import type { HeadlineFigure, ReportSection, Scenario } from './scenario.ts';
import { lambdaBundlesScenario } from './scenarios/lambda-bundles.ts';
import { learningLoadScenario } from './scenarios/learning-load.ts';
import { notesLoadScenario } from './scenarios/notes-load.ts';
import { proceduralQualityScenario } from './scenarios/procedural-quality.ts';
import { proceduresLoadScenario } from './scenarios/procedures-load.ts';
import { retrievalQualityScenario } from './scenarios/retrieval-quality.ts';
import { searchLoadScenario } from './scenarios/search-load.ts';

/** In report order. Later scenarios are added here. */
const SCENARIOS: readonly Scenario[] = [
  notesLoadScenario,
  learningLoadScenario,
  lambdaBundlesScenario,
  retrievalQualityScenario,
  searchLoadScenario,
  proceduresLoadScenario,
  proceduralQualityScenario,
];

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

const gitRevision = (): string | undefined => {
  try {
    const revision = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${revision} (with uncommitted changes)` : revision;
  } catch {
    return undefined;
  }
};

const main = async (options: BenchOptions) => {
  const selected = options.scenarios
    ? SCENARIOS.filter((scenario) => options.scenarios?.includes(scenario.name))
    : SCENARIOS.filter((scenario) => scenario.inDefaultRun !== false);
  const unknown = options.scenarios?.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`Unknown scenario(s): ${unknown.join(', ')}`);

  const startedAt = new Date();
  const started = performance.now();
  const machine = await describeMachine();
  log(`${options.quick ? 'quick' : 'full'} run: ${selected.map((scenario) => scenario.name).join(', ')}`);

  const sections: ReportSection[] = [];
  const headline: HeadlineFigure[] = [];
  const methodNotes: string[] = [];
  const raw: Record<string, unknown> = {};
  let failed = false;
  for (const scenario of selected) {
    try {
      const result = await scenario.run(options, log);
      sections.push(...result.sections);
      headline.push(...result.headline);
      methodNotes.push(...result.methodNotes);
      raw[scenario.name] = result.raw;
    } catch (error) {
      // Keep the other scenarios' figures: report the failure in place of this one's sections.
      failed = true;
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`${scenario.name} failed: ${message}`);
      sections.push({ title: `${scenario.name}: failed`, body: `The scenario failed:\n\n\`\`\`\n${message}\n\`\`\`` });
      headline.push({ label: scenario.name, value: 'failed', pass: false });
      raw[scenario.name] = { failed: message };
    }
  }
  methodNotes.push(
    `The machine is shared and noisy; figures move from run to run. Compare runs with the per-run detail and the raw figures of every run in \`${options.resultsDir}/history.jsonl\`.`,
  );
  sections.push({ title: 'Notes on method', body: bullets(methodNotes) });

  const durationSeconds = (performance.now() - started) / 1000;
  const markdown = renderBenchmarks(
    {
      command: benchCommand(options),
      startedAt,
      durationSeconds,
      machine,
      gitRevision: gitRevision(),
      quick: options.quick,
      loadAverageAtEnd: loadavg(),
    },
    headline,
    sections,
  );

  // One JSON line per run (JSON Lines, which Biome does not lint), to compare runs over time.
  await mkdir(options.resultsDir, { recursive: true });
  const rawPath = `${options.resultsDir}/history.jsonl`;
  await appendFile(rawPath, `${JSON.stringify({ startedAt, durationSeconds, machine, options, headline, raw })}\n`);
  if (options.reportPath) {
    await mkdir(dirname(options.reportPath), { recursive: true });
    await writeFile(options.reportPath, markdown);
    log(`wrote ${options.reportPath} and ${rawPath} after ${durationSeconds.toFixed(0)} s`);
  }
  if (!options.reportPath || options.quick) process.stdout.write(markdown);
  if (failed) process.exitCode = 1;
};

/** The command line that reproduces the run: quick or not, and the scenarios named. */
function benchCommand(options: BenchOptions): string {
  const flags = [
    ...(options.quick ? ['--quick'] : []),
    ...(options.scenarios ?? []).map((name) => `--scenario ${name}`),
  ];
  return flags.length > 0 ? `npm run bench -- ${flags.join(' ')}` : 'npm run bench';
}

try {
  await main(parseBenchOptions(process.argv.slice(2)));
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
}
