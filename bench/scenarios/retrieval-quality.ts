/**
 * Retrieval quality: the project's labelled set (bench/retrieval-quality/) indexed by the real embedded index and
 * searched with every strategy as `/v1/search` runs it; Recall@k and nDCG@k overall and per query category.
 */
import { SEARCH_STRATEGIES, type SearchStrategy } from '../../lambdas/capabilities/retrieval/search.schema.ts';
import type { Embedder } from '../../lambdas/kernel/search/embedder.port.ts';
import type { BenchOptions } from '../bench-options.ts';
import { buildRetrievalSet, DEFAULT_MEMORY_COUNT, DEFAULT_SEED } from '../retrieval-quality/dataset.ts';
import { evaluate } from '../retrieval-quality/metrics.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { type QualityMeasurement, retrievalQualityReport } from './retrieval-quality-report.ts';
import { RetrievalQualityService } from './retrieval-quality-service.ts';

/** The cut-offs reported; a search asks for the largest. */
export const QUALITY_CUTOFFS = [5, 10] as const;

export interface QualityRunOptions {
  readonly seed: number;
  readonly memories: number;
  readonly strategies?: readonly SearchStrategy[];
  readonly embedder?: Embedder;
}

/** Builds the set, indexes it and evaluates each strategy over every query. */
export const measureRetrievalQuality = async (
  options: QualityRunOptions,
  log: (line: string) => void = () => undefined,
): Promise<QualityMeasurement> => {
  const set = buildRetrievalSet({ seed: options.seed, memories: options.memories });
  const indexing = performance.now();
  const service = await RetrievalQualityService.index(set.memories, { embedder: options.embedder });
  const indexSeconds = (performance.now() - indexing) / 1000;
  log(
    `retrieval-quality: indexed ${service.documents} memories (seed ${options.seed}) in ${indexSeconds.toFixed(1)} s`,
  );
  const k = Math.max(...QUALITY_CUTOFFS);
  const strategies = [];
  for (const strategy of options.strategies ?? SEARCH_STRATEGIES) {
    const started = performance.now();
    const report = await evaluate(set.queries, (query) => service.search(query.text, strategy, k), QUALITY_CUTOFFS);
    const seconds = (performance.now() - started) / 1000;
    log(`retrieval-quality: ${strategy} R@10 ${report.overall.recall[10]?.toFixed(3)} in ${seconds.toFixed(1)} s`);
    strategies.push({ strategy, report, seconds });
  }
  return {
    seed: options.seed,
    memories: set.memories.length,
    queries: set.queries.length,
    indexSeconds,
    strategies,
  };
};

export const retrievalQualityScenario: Scenario = {
  name: 'retrieval-quality',
  async run(options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> {
    // The whole set takes seconds, so the quick run measures it whole too: its figures are the full run's.
    const measurement = await measureRetrievalQuality({ seed: DEFAULT_SEED, memories: DEFAULT_MEMORY_COUNT }, log);
    return retrievalQualityReport(options, measurement);
  },
};
