/**
 * The benchmark is a list of scenarios; each runs on its own and hands back report sections. A new
 * scenario plugs in by implementing `Scenario` and joining the list in `run-bench.ts`.
 */
import type { BenchOptions } from './bench-options.ts';

export interface ReportSection {
  /** Rendered as a `##` heading. */
  title: string;
  /** Markdown body, without the heading. */
  body: string;
}

/** One line of the headline summary at the top of the report. */
export interface HeadlineFigure {
  label: string;
  value: string;
  /** Whether the figure meets its budget; undefined when it has none. */
  pass?: boolean;
}

export interface ScenarioResult {
  sections: ReportSection[];
  headline: HeadlineFigure[];
  /** Raw figures, written to bench/.results/ as JSON for later comparison. */
  raw: unknown;
  /** Bullet points for the closing "Notes on method" section. */
  methodNotes: string[];
}

export interface Scenario {
  readonly name: string;
  /** `false`: run only when named (`--scenario`), for a scenario too long for every full run. */
  readonly inDefaultRun?: false;
  run(options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult>;
}
