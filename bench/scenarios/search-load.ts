/**
 * Search under load (issue 12): one namespace grown through 1k, 10k and 100k notes on one local server, every
 * strategy searched one request at a time at each size (with the memory the server holds and the first search
 * after a restart), the lag from commit to searchable, and searches inside the 120/s notes mix against the 10k
 * namespace, with what a search costs in AWS.
 */
import type { BenchOptions } from '../bench-options.ts';
import { loadDeployedConsumers } from '../cost-model.ts';
import type { FixedRateRun } from '../load/fixed-rate-run.ts';
import { HttpClient } from '../load/http-client.ts';
import { mintIdentities, type PrincipalIdentity } from '../load/identities.ts';
import { type SessionSetup, withSessionSetup } from '../load/load-session.ts';
import { LISTED_ITEMS, NotesWorkload } from '../load/notes-workload.ts';
import { runOpenLoop } from '../load/open-loop-driver.ts';
import { analysePhase, judgePhase, meanObserved } from '../load/phase-analysis.ts';
import {
  countDeadLetters,
  frequentTags,
  growthSegments,
  hitIdsOf,
  interleave,
  planSearches,
  probeIndexLag,
  processMemory,
  SEARCH_MIX_OPERATIONS,
  SEARCH_OPERATION,
  SEARCH_STRATEGIES,
  type SearchBody,
  type SearchCorpus,
  type SearchMixOperation,
  SearchMixWorkload,
  type SearchStrategy,
  searchCorpus,
  seedNotes,
  sendSearch,
} from '../load/search-workload.ts';
import { costFigures } from '../report/cost-tables.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import {
  type CostReport,
  cpuShare,
  createDataDir,
  mainThreadShare,
  removeDataDir,
  ServerProcess,
} from '../server-process.ts';
import { seededRandom } from '../stats.ts';
import {
  type ColdSearch,
  type GrowthPoint,
  type LagFigures,
  MIXED_SEARCH_SHARE,
  type MixedRun,
  SEARCH_BUDGET,
  type SearchLoadPlan,
  type SegmentCost,
  searchLoadReport,
} from './search-report.ts';

/**
 * Sizes and sample counts: the full run and the quick one (no 100k point). Notes are written 8 at a time, as
 * agents of one principal would under load: 100k take about ten minutes; the log entries group what arrives
 * together, as they would in AWS.
 */
export const searchLoadPlan = (options: BenchOptions): SearchLoadPlan =>
  options.quick
    ? {
        sizes: [1_000, 10_000],
        searchesPerStrategy: 20,
        warmupPerStrategy: 5,
        lagSamples: 30,
        lagIntervalMs: 10,
        mixedSize: 10_000,
        lagSize: 1_000,
        seedConcurrency: 8,
        k: 10,
        filteredShare: 0.2,
        serviceTimePerStrategy: 6,
        seedMinutesPerSize: 10,
      }
    : {
        sizes: [1_000, 10_000, 100_000],
        searchesPerStrategy: 100,
        warmupPerStrategy: 20,
        lagSamples: 50,
        lagIntervalMs: 10,
        mixedSize: 10_000,
        lagSize: 1_000,
        seedConcurrency: 8,
        k: 10,
        filteredShare: 0.2,
        serviceTimePerStrategy: 20,
        seedMinutesPerSize: 30,
      };

/** Waits for indexing to catch up after a seed: a fresh note searchable, then a quiet server. */
const CATCH_UP_TIMEOUT_MS = 60 * 60_000;
const QUIET_TIMEOUT_MS = 30_000;
/** Under the mixed load, one probe at a time with this pause between them. */
const MIXED_LAG_PAUSE_MS = 500;
const MIXED_LAG_INTERVAL_MS = 20;

interface Server {
  process: ServerProcess;
  client: HttpClient;
}

/**
 * With `meterEngineWork`, the server's cost meter reads every engine request and answer (what the cost model needs),
 * which costs the server CPU no function in AWS spends: the seeding and cost lives have it, the measured ones not.
 */
const startServer = async (dataDir: string, meterEngineWork = false): Promise<Server & { startSeconds: number }> => {
  const started = performance.now();
  // 10k notes' data replays in about 15 s: 100k, ten times that, with room to spare.
  const process = await ServerProcess.start(dataDir, { meterEngineWork, startupTimeoutMs: 10 * 60_000 });
  return { process, client: new HttpClient(process.url), startSeconds: (performance.now() - started) / 1000 };
};

const stopServer = async (server: Server): Promise<CostReport> => {
  server.client.close();
  try {
    return await server.process.stop();
  } finally {
    server.process.kill();
  }
};

/** A fresh note searchable by keyword, then a quiet server: whatever the relay still had queued has been applied. */
const waitForCatchUp = async (
  server: Server,
  searcher: PrincipalIdentity,
  seed: number,
  log: (line: string) => void,
) => {
  const started = performance.now();
  // Its own seed per wait: a word an earlier probe wrote would list that older note first.
  const probe = await probeIndexLag(server.client, searcher, seededRandom(seed), {
    intervalMs: 250,
    timeoutMs: CATCH_UP_TIMEOUT_MS,
  });
  if (probe.lagMs === undefined) throw new Error('The index did not catch up with the seeded notes');
  // The relay takes its entries in order, a batch at a time, so the last note searchable means every earlier one
  // was applied (or dead-lettered, which is counted at the end); the quiet wait only lets the last batch settle.
  const quiet = await server.process.waitForIdle({ belowShare: 0.2, timeoutMs: QUIET_TIMEOUT_MS });
  const seconds = (performance.now() - started) / 1000;
  log(
    `  index caught up ${seconds.toFixed(0)} s after the last create${quiet ? '' : ' (the server did not go quiet within 30 s)'}`,
  );
  return seconds;
};

/** Each strategy's searches one at a time, after unmeasured warm-up searches of the same plan. */
const searchOneAtATime = async (
  server: Server,
  searcher: PrincipalIdentity,
  plans: Readonly<Record<SearchStrategy, readonly SearchBody[]>>,
  warmup: number,
): Promise<GrowthPoint['byStrategy']> => {
  const result = {} as GrowthPoint['byStrategy'];
  for (const strategy of SEARCH_STRATEGIES) {
    const plan = plans[strategy];
    for (const body of plan.slice(0, warmup)) await sendSearch(server.client, searcher, body);
    const latencies: number[] = [];
    let errors = 0;
    let hits = 0;
    for (const body of plan) {
      const started = performance.now();
      const response = await sendSearch(server.client, searcher, body);
      latencies.push(performance.now() - started);
      if (response.status !== 200) errors += 1;
      hits += hitIdsOf(response).length;
    }
    result[strategy] = { latencies, errors, meanHits: hits / Math.max(1, plan.length) };
  }
  return result;
};

/** The first search of each strategy after a restart; the first of them loads the namespace's index. */
const coldSearches = async (
  server: Server & { startSeconds: number },
  searcher: PrincipalIdentity,
  plans: Readonly<Record<SearchStrategy, readonly SearchBody[]>>,
): Promise<ColdSearch> => {
  const before = await processMemory(server.process.pid);
  const order: SearchStrategy[] = ['hybrid', 'keyword', 'semantic', 'recency', 'graph'];
  const firstByStrategy = {} as Record<SearchStrategy, number>;
  let errors = 0;
  for (const strategy of order) {
    const started = performance.now();
    const response = await sendSearch(server.client, searcher, plans[strategy][0] as SearchBody);
    firstByStrategy[strategy] = performance.now() - started;
    if (response.status !== 200) errors += 1;
  }
  return {
    restartSeconds: server.startSeconds,
    firstStrategy: 'hybrid',
    firstByStrategy,
    errors,
    memoryBefore: before,
    memoryAfter: await processMemory(server.process.pid),
  };
};

const lagSamples = async (
  server: Server,
  author: PrincipalIdentity,
  count: number,
  intervalMs: number,
  seed: number,
): Promise<LagFigures> => {
  const random = seededRandom(seed);
  const lags: number[] = [];
  let timeouts = 0;
  let polls = 0;
  for (let index = 0; index < count; index++) {
    const probe = await probeIndexLag(server.client, author, random, { intervalMs, timeoutMs: 30_000 });
    polls += probe.polls;
    if (probe.lagMs === undefined) timeouts += 1;
    else lags.push(probe.lagMs);
  }
  return { lags, timeouts, intervalMs, polls };
};

/** What the segment's creates caused after their answers (relay, head projection, audit, search index), per create. */
const segmentCost = (report: CostReport, adds: number): SegmentCost => {
  const create = report.createNote;
  const requests = create?.requests ?? 0;
  const per = (value: number | undefined) => (requests === 0 ? Number.NaN : (value ?? 0) / requests);
  const caused = create?.caused;
  const eventMs = [...(caused?.eventMilliseconds ?? [])].sort((a, b) => a - b);
  return {
    creates: requests,
    adds,
    causedWriteUnits: per(caused?.engine.writeUnits),
    causedFailedConditionUnits: per(caused?.engine.failedConditionUnits),
    causedIndexWriteUnits: per(caused?.engine.indexWriteUnits),
    causedReadUnits: per(caused?.engine.readUnits),
    causedRequests: per(caused?.engine.requests),
    eventMillisecondsP50: eventMs[Math.floor(eventMs.length / 2)] ?? Number.NaN,
    eventMillisecondsTotal: eventMs.reduce((sum, value) => sum + value, 0),
  };
};

/** The notes mix at the fixed rate with a share of searches against the searcher's namespace, lag probes alongside. */
const mixedPhases = async (
  setup: SessionSetup,
  server: Server,
  searcher: PrincipalIdentity,
  plan: readonly SearchBody[],
  /**
   * `seed` draws the lag probes' words: each life its own, or a probe would list an earlier life's note first.
   * `life` names the principals each run mints for its notes mix (`{life}-run{n}-agent-…`), never met before.
   */
  what: { life: string; runs: number; serviceTime: boolean; seed: number; probeLag: boolean },
): Promise<{
  runs: MixedRun[];
  serviceTime: FixedRateRun<SearchMixOperation>['serviceTime'];
  unmeasured: Record<string, number>;
}> => {
  const { options, log } = setup;
  const { ratePerSecond, durationSeconds, warmupSeconds } = options.load;
  const runCount = what.runs;
  const unmeasured: Record<string, number> = {};
  const count = (samples: readonly { operation: string }[]) => {
    for (const sample of samples) unmeasured[sample.operation] = (unmeasured[sample.operation] ?? 0) + 1;
  };
  /** A run's workload: principals of its own, seeded as notes-load seeds them, then the warm-up (all unmeasured). */
  const freshWorkload = async (index: number) => {
    const principals = await mintIdentities(setup.issuerTemplate, {
      ...options.workload,
      subPrefix: `${what.life}-run${index + 1}-agent`,
    });
    const fresh = new SearchMixWorkload({
      notes: new NotesWorkload(principals, options.workload, 300),
      searcher,
      plan,
      searchShare: MIXED_SEARCH_SHARE,
      seed: 12 + index,
    });
    const seeded = await fresh.seed(server.client);
    for (const [operation, requests] of Object.entries(seeded.requests))
      unmeasured[operation] = (unmeasured[operation] ?? 0) + requests;
    if (warmupSeconds > 0) {
      const warmup = await runOpenLoop({
        ratePerSecond,
        durationSeconds: warmupSeconds,
        drainTimeoutMs: options.drainTimeoutMs,
        issue: () => fresh.issue(server.client),
      });
      count(warmup.samples);
    }
    return fresh;
  };
  const runs: MixedRun[] = [];
  const random = seededRandom(what.seed);
  let workload: SearchMixWorkload | undefined;
  for (let index = 0; index < runCount; index++) {
    log(
      `search-load mixed run ${index + 1}/${runCount}: ${ratePerSecond}/s for ${durationSeconds} s, ${MIXED_SEARCH_SHARE * 100}% searches`,
    );
    const current = await freshWorkload(index);
    workload = current;
    const before = await server.process.cpu();
    let running = true;
    const lagClient = new HttpClient(server.process.url);
    const lags: number[] = [];
    let lagTimeouts = 0;
    const probing = (async () => {
      while (running && what.probeLag) {
        const probe = await probeIndexLag(lagClient, searcher, random, {
          intervalMs: MIXED_LAG_INTERVAL_MS,
          timeoutMs: 30_000,
        });
        if (probe.lagMs === undefined) lagTimeouts += 1;
        else lags.push(probe.lagMs);
        await new Promise((resolve) => setTimeout(resolve, MIXED_LAG_PAUSE_MS));
      }
    })();
    const phase = await runOpenLoop({
      ratePerSecond,
      durationSeconds,
      drainTimeoutMs: options.drainTimeoutMs,
      issue: () => current.issue(server.client),
    });
    running = false;
    await probing;
    lagClient.close();
    const after = await server.process.cpu();
    const analysis = analysePhase(phase, SEARCH_MIX_OPERATIONS);
    const byStrategy = Object.fromEntries(
      SEARCH_STRATEGIES.map((strategy, position) => [
        strategy,
        phase.samples
          .filter((sample) => sample.operation === SEARCH_OPERATION && sample.observed?.strategy === position)
          .map((sample) => sample.latency),
      ]),
    ) as Record<SearchStrategy, number[]>;
    runs.push({
      analysis,
      verdict: judgePhase(analysis, SEARCH_BUDGET.mixed),
      serverCpuShare: cpuShare(before, after),
      mainThreadCpuShare: mainThreadShare(before, after),
      searchLatencyByStrategy: byStrategy,
      lag: { lags, timeouts: lagTimeouts, intervalMs: MIXED_LAG_INTERVAL_MS, polls: 0 },
      listedPerPage: meanObserved(
        phase.samples.filter((sample) => sample.operation === 'listNotes'),
        LISTED_ITEMS,
      ),
    });
    log(
      `  achieved ${analysis.achievedRatePerSecond.toFixed(1)}/s, errors ${analysis.errors}, search p95 ` +
        `${analysis.byOperation[SEARCH_OPERATION]?.p95.toFixed(1)} ms (${analysis.byOperation[SEARCH_OPERATION]?.count} searches)`,
    );
  }
  // One at a time: every operation, searches of each strategy in turn (the Lambda duration the cost model reads).
  const serviceTime = Object.fromEntries(
    SEARCH_MIX_OPERATIONS.map((operation) => [operation, { latencies: [] as number[], errors: 0 }]),
  ) as FixedRateRun<SearchMixOperation>['serviceTime'];
  const perOperation = setup.options.load.serviceTimeRequests;
  // The last run's workload (its principals and their notes) serves the one-at-a-time requests.
  const served = what.serviceTime ? workload : undefined;
  if (what.serviceTime && !served) throw new Error('The service-time phase follows at least one run');
  for (const operation of served ? SEARCH_MIX_OPERATIONS : []) {
    const requests =
      operation === SEARCH_OPERATION
        ? searchLoadPlan(options).serviceTimePerStrategy * SEARCH_STRATEGIES.length
        : perOperation;
    for (let index = 0; served && index < requests; index++) {
      const started = performance.now();
      const outcome = await served.issueOperation(server.client, operation);
      const entry = serviceTime[outcome.operation as SearchMixOperation];
      entry.latencies.push(performance.now() - started);
      if (outcome.status < 200 || outcome.status > 299) entry.errors += 1;
    }
  }
  return { runs, serviceTime, unmeasured };
};

/** About 90–100 minutes in a full run (the 100k namespace is written through the API): named, not default. */
export const searchLoadScenario: Scenario = {
  name: 'search-load',
  inDefaultRun: false,
  run: (options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> =>
    withSessionSetup(options, log, async (setup) => {
      const plan = searchLoadPlan(options);
      const largest = Math.max(...plan.sizes);
      const corpus: SearchCorpus = searchCorpus(largest);
      const [searcher] = setup.identities;
      if (!searcher) throw new Error('search-load needs at least one principal');
      const tags = frequentTags(corpus.notes.slice(0, plan.sizes[0]), 8);
      const started = new Date();
      const plans = (seed: number) =>
        Object.fromEntries(
          SEARCH_STRATEGIES.map((strategy, position) => [
            strategy,
            planSearches(strategy, plan.searchesPerStrategy, {
              queries: corpus.queries,
              tags,
              since: started.toISOString(),
              filteredShare: plan.filteredShare,
              k: plan.k,
              seed: seed + position,
            }),
          ]),
        ) as Record<SearchStrategy, SearchBody[]>;

      const dataDir = await createDataDir(setup.issuerTemplate);
      let server: (Server & { startSeconds: number }) | undefined;
      const points: GrowthPoint[] = [];
      let lag: LagFigures | undefined;
      let mixed: Awaited<ReturnType<typeof mixedPhases>> | undefined;
      let mixedCost: Awaited<ReturnType<typeof mixedPhases>> | undefined;
      let mixedCostReport: CostReport | undefined;
      let deadLetters: Record<string, number> = {};
      let stopped: { size: number; reason: string } | undefined;
      try {
        for (const segment of growthSegments(plan.sizes)) {
          // A size the machine cannot reach (or a server that fails there) ends the growth; the sizes before it stand.
          try {
            // The seeding life: the meter reads the engine's work, for what indexing costs per create.
            server ??= await startServer(dataDir, true);
            const seedingServer = server;
            const seeding = performance.now();
            log(
              `search-load: writing notes ${segment.from + 1}–${segment.size} into one namespace (${plan.seedConcurrency} at a time)`,
            );
            const { written, failures } = await seedNotes(
              seedingServer.client,
              searcher,
              corpus.notes.slice(segment.from, segment.size),
              {
                concurrency: plan.seedConcurrency,
                deadline: seeding + plan.seedMinutesPerSize * 60_000,
                progressEvery: 2500,
                onProgress: (count) =>
                  log(
                    `  ${segment.from + count} notes, ${(count / ((performance.now() - seeding) / 1000)).toFixed(0)}/s`,
                  ),
              },
            );
            const size = segment.from + written;
            if (failures > written * 0.001) throw new Error(`${failures} of ${written} creates failed`);
            if (written < segment.adds) {
              stopped = {
                size: segment.size,
                reason: `${size} notes after the ${plan.seedMinutesPerSize} min a size may take to write`,
              };
              log(`  stopped growing at ${size} notes: ${plan.seedMinutesPerSize} min were up`);
            }
            const seedSeconds = (performance.now() - seeding) / 1000;
            const catchUpSeconds = await waitForCatchUp(seedingServer, searcher, 1_000_003 + segment.size, log);
            server = undefined;
            const seedReport = await stopServer(seedingServer);

            // The measured life: restarted on the same data, the first search cold, then every strategy warm.
            const measured = await startServer(dataDir);
            server = measured;
            const cold = await coldSearches(measured, searcher, plans(segment.size + 1));
            log(
              `  restarted in ${cold.restartSeconds.toFixed(1)} s; first search ${cold.firstByStrategy.hybrid.toFixed(0)} ms`,
            );
            const byStrategy = await searchOneAtATime(measured, searcher, plans(segment.size), plan.warmupPerStrategy);
            const memory = await processMemory(measured.process.pid);
            log(
              `  at ${size}: p95 ${SEARCH_STRATEGIES.map((strategy) => `${strategy} ${percentileOf(byStrategy[strategy].latencies, 95)}`).join(', ')} ms; ` +
                `RSS ${((memory?.rssBytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
            );
            if (segment.size === plan.lagSize) {
              lag = await lagSamples(measured, searcher, plan.lagSamples, plan.lagIntervalMs, segment.size);
              log(`  index lag at ${size}: p50 ${percentileOf(lag.lags, 50)} ms, p95 ${percentileOf(lag.lags, 95)} ms`);
            }
            points.push({
              size,
              target: segment.size,
              seedSeconds,
              catchUpSeconds,
              failures,
              byStrategy,
              memory,
              cold,
              cost: segmentCost(seedReport, written),
            });
            const mixedPlan = () => {
              const plansOfSize = plans(segment.size + 2);
              return interleave(SEARCH_STRATEGIES.map((strategy) => plansOfSize[strategy]));
            };
            if (segment.size === plan.mixedSize && !stopped) {
              mixed = await mixedPhases(setup, measured, searcher, mixedPlan(), {
                life: 'mixed',
                runs: options.load.runs,
                serviceTime: false,
                seed: 99,
                probeLag: true,
              });
            }
            server = undefined;
            await stopServer(measured);
            if (segment.size === plan.mixedSize && !stopped) {
              // The cost life, as the other load scenarios have one: the same mix once more, the meter reading the
              // engine's work, then every operation one request at a time.
              log('search-load cost run: the mix once more, the meter on');
              const costing = await startServer(dataDir, true);
              server = costing;
              mixedCost = await mixedPhases(setup, costing, searcher, mixedPlan(), {
                life: 'cost',
                runs: 1,
                serviceTime: true,
                seed: 199,
                // Its searches are what the cost per search is averaged over: no probe's one-word searches among them.
                probeLag: false,
              });
              server = undefined;
              mixedCostReport = await stopServer(costing);
            }
          } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            log(`  search-load stopped at the ${segment.size} step: ${reason}`);
            stopped = { size: segment.size, reason: reason.split('\n')[0] ?? reason };
            server?.process.kill();
            server = undefined;
          }
          if (stopped) break;
        }
        if (server) await stopServer(server);
        server = undefined;
        deadLetters = await countDeadLetters(dataDir);
      } finally {
        server?.process.kill();
        await removeDataDir(dataDir);
      }
      const costs = mixedCost && mixedCostReport ? mixedCosts(mixedCost, mixedCostReport) : undefined;
      return searchLoadReport(options, plan, { points, lag, mixed: mixed?.runs ?? [], costs, deadLetters, stopped });
    }),
};

const percentileOf = (values: readonly number[], percent: number): string => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1)] ?? Number.NaN).toFixed(1);
};

/** The mixed server life's cost report as the cost model reads a fixed-rate run. */
const mixedCosts = (mixed: Awaited<ReturnType<typeof mixedPhases>>, costReport: CostReport) => {
  const [first] = mixed.runs;
  if (!first) return undefined;
  const handlerUnderLoad: Record<string, number[]> = {};
  const handlerAlone: Record<string, number[]> = {};
  for (const operation of SEARCH_MIX_OPERATIONS) {
    const entries = costReport[operation]?.handlerMilliseconds ?? [];
    const alone = mixed.serviceTime[operation].latencies.length;
    handlerUnderLoad[operation] = entries.slice(mixed.unmeasured[operation] ?? 0, entries.length - alone);
    handlerAlone[operation] = entries.slice(entries.length - alone);
  }
  const run: FixedRateRun<SearchMixOperation> = {
    index: 0,
    analysis: first.analysis,
    verdict: first.verdict,
    serverCpuShare: first.serverCpuShare,
    mainThreadCpuShare: first.mainThreadCpuShare,
    otherCpuCores: undefined,
    quietWaitSeconds: 0,
    setupSeconds: 0,
    costReport,
    handlerUnderLoad,
    handlerAlone,
    serviceTime: mixed.serviceTime,
    relayLag: [],
  };
  return { run, figures: costFigures([run], SEARCH_MIX_OPERATIONS, 'search-mix', loadDeployedConsumers()) };
};
