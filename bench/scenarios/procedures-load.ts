/**
 * Procedural memory under load (issue 13): the team-coordination mix at the fixed rate (1,000 open tasks,
 * 250 agents writing blackboard entries and state evidence), then procedure retrieval over one project's pool
 * of 10,000 procedures, one request at a time.
 */
import type { BenchOptions } from '../bench-options.ts';
import { forEachConcurrently } from '../load/concurrently.ts';
import { type FixedRateRun, runFixedRates } from '../load/fixed-rate-run.ts';
import { HttpClient } from '../load/http-client.ts';
import { LoadSession, withSessionSetup } from '../load/load-session.ts';
import {
  benchProcedure,
  mintTeams,
  PROJECT,
  type ProceduresOperation,
  ProceduresWorkload,
  type TeamShape,
} from '../load/procedures-workload.ts';
import type { Scenario, ScenarioResult } from '../scenario.ts';
import { createDataDir, removeDataDir, ServerProcess } from '../server-process.ts';
import { summarize } from '../stats.ts';
import { type PoolRetrieval, PROCEDURES_BUDGET } from './procedures-budget.ts';
import { proceduresLoadReport } from './procedures-report.ts';

const POOL_QUERIES = [
  { query: 'rotate the signing key for the release', facts: [] },
  { query: 'routine backup restore', facts: ['production'] },
  { query: 'debug the failed deployment', facts: [] },
  { query: 'latest incident review', facts: ['production'] },
  { query: 'document the onboarding for new agents', facts: [] },
];

const measurePoolRetrieval = async (
  issuerDir: string,
  manager: string,
  pool: number,
  samples: number,
  log: (line: string) => void,
): Promise<PoolRetrieval> => {
  const dataDir = await createDataDir(issuerDir);
  const server = await ServerProcess.start(dataDir);
  const client = new HttpClient(server.url);
  try {
    const seeding = performance.now();
    let failures = 0;
    await forEachConcurrently(
      Array.from({ length: pool }, (_, index) => index),
      8,
      async (index) => {
        const response = await client.send({
          method: 'POST',
          path: `/v1/projects/${PROJECT}/procedures`,
          headers: { authorization: manager },
          body: benchProcedure(index),
        });
        if (response.status !== 201) failures += 1;
      },
    );
    if (failures > 0) throw new Error(`Seeding the pool failed: ${failures} creates did not return 201`);
    const seedSeconds = (performance.now() - seeding) / 1000;
    log(`  pool of ${pool} procedures seeded in ${seedSeconds.toFixed(1)} s`);
    const retrieve = async (index: number) => {
      const started = performance.now();
      const response = await client.send({
        method: 'POST',
        path: `/v1/projects/${PROJECT}/procedures/retrieve`,
        headers: { authorization: manager },
        body: POOL_QUERIES[index % POOL_QUERIES.length],
      });
      const latency = performance.now() - started;
      const candidates = response.status === 200 ? (JSON.parse(response.body) as { candidates: number }).candidates : 0;
      return { latency, ok: response.status === 200, candidates };
    };
    const first = await retrieve(0);
    for (let index = 0; index < 20; index++) await retrieve(index);
    const warm: number[] = [];
    let errors = first.ok ? 0 : 1;
    let candidates = 0;
    for (let index = 0; index < samples; index++) {
      const result = await retrieve(index);
      warm.push(result.latency);
      if (!result.ok) errors += 1;
      candidates = Math.max(candidates, result.candidates);
    }
    return { pool, seedSeconds, firstMs: first.latency, warm: summarize(warm), candidates, errors };
  } finally {
    client.close();
    await server.stop().catch(() => server.kill());
    await removeDataDir(dataDir);
  }
};

export const proceduresLoadScenario: Scenario = {
  name: 'procedures-load',
  run: (options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult> =>
    withSessionSetup(options, log, async (setup) => {
      const shape: TeamShape = {
        tenants: options.workload.tenants,
        agents: options.workload.principals,
        tasks: options.quick ? 200 : 1000,
        proceduresPerProject: 50,
      };
      const teams = await mintTeams(setup.issuerTemplate, shape);
      const runs = await runFixedRates(setup, {
        name: 'procedures-load',
        budget: PROCEDURES_BUDGET,
        open: (index, serverOptions) =>
          LoadSession.open(
            setup,
            new ProceduresWorkload(teams, shape, index),
            options.load.ratePerSecond,
            serverOptions,
          ),
        complete: (run: FixedRateRun<ProceduresOperation>) => run,
      });
      const pool = options.quick ? 1_000 : 10_000;
      log(`procedures-load pool retrieval: ${pool} procedures in one project`);
      const retrieval = await measurePoolRetrieval(
        setup.issuerTemplate,
        teams[0]?.manager as string,
        pool,
        options.quick ? 50 : 200,
        log,
      );
      return proceduresLoadReport(options, shape, runs, retrieval);
    }),
};
