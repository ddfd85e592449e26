/**
 * Each Lambda bundle as it would be deployed — built with the shared esbuild options from
 * `lib/lambda-bundling.ts` — with its size and its cold initialisation time: `await import(bundle)` in a
 * fresh Node process, with the environment a deployed function gets; AWS calls made at init (the SSM
 * configuration read) are answered by a loopback stub, so no network is needed.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { PRE_TOKEN_GENERATION_ENTRY } from '../lib/constructs/identity.ts';
import { OUTBOX_RELAY_HANDLERS } from '../lib/constructs/outbox-relay.ts';
import { WORKFLOW_STEP_HANDLER } from '../lib/constructs/workflows.ts';
import { loadConsumers } from '../lib/deployment-document.ts';
import { lambdaEsbuildOptions } from '../lib/lambda-bundling.ts';
import { DEPLOYMENT_DOCUMENT_PATH, EVENTS_ENTRY, PROJECT_ROOT, WORKFLOWS_ENTRY } from '../lib/memory-hub-stack.ts';
import { groupOperationsByFunction, loadOpenApiDocument, readApiOperations } from '../lib/openapi-operations.ts';
import { type FakeAwsEndpoint, startFakeAwsEndpoint } from './fake-aws-endpoint.ts';
import { median } from './stats.ts';

export const OPENAPI_DOCUMENT = 'lambdas/generated/openapi.json';

/** What a deployed function's environment holds at init (see lambdas/composition/create-aws-backend.ts). */
export const COLD_INIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  MEMORY_HUB_STAGE: 'bench',
  MEMORY_HUB_TABLE_NAME: 'bench-table',
  MEMORY_HUB_KEY_ARN: 'arn:aws:kms:us-east-1:111122223333:key/bench',
  MEMORY_HUB_BRANCH_KEY_TABLE_NAME: 'bench-branch-keys',
  MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-bench-branch-keys',
  MEMORY_HUB_CONFIG_PARAMETER: '/memory-hub/bench/config',
  AWS_REGION: 'us-east-1',
};

/**
 * Also set for the probe, as Lambda sets credentials in the environment: dummy keys, so the SDK never
 * probes for credentials over the network, and every AWS endpoint pointed at the loopback stub.
 */
const PROBE_AWS_ENVIRONMENT: Readonly<Record<string, string>> = {
  AWS_ACCESS_KEY_ID: 'AKIABENCHBENCHBENCH0',
  AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key-not-real',
};

export interface BundleEntry {
  entry: string;
  /** Handler names the OpenAPI document binds to this entry. */
  handlers: string[];
}

export interface BundleMeasurement extends BundleEntry {
  outfile: string;
  /** Why the bundle could not be built or imported, when it could not. */
  failure?: string;
  /** AWS calls one init made (answered by the loopback stub), e.g. `AmazonSSM.GetParameter`. */
  awsCallsAtInit: string[];
  bytes: number;
  gzipBytes: number;
  /** Exports found when the bundle was imported. */
  exports: string[];
  /** `await import()` duration per fresh process, ms. */
  importMilliseconds: number[];
  /** Spawn to exit of each fresh process (Node start + import), ms. */
  processMilliseconds: number[];
  importMedian: number;
  processMedian: number;
  /** Largest contributors to the bundle, by package. */
  largestPackages: { name: string; bytes: number }[];
}

/** The distinct `x-memory-hub.lambda.entry` files of the API, with their handlers. */
export const apiLambdaEntries = (documentPath = OPENAPI_DOCUMENT): BundleEntry[] => {
  const functions = groupOperationsByFunction(readApiOperations(loadOpenApiDocument(documentPath)));
  const byEntry = new Map<string, Set<string>>();
  for (const spec of functions) {
    const handlers = byEntry.get(spec.entry) ?? new Set<string>();
    handlers.add(spec.handler);
    byEntry.set(spec.entry, handlers);
  }
  return [...byEntry].map(([entry, handlers]) => ({ entry, handlers: [...handlers].sort() }));
};

const fromRoot = (absolute: string): string => relative(PROJECT_ROOT, absolute);

/**
 * Every entry the CDK app deploys functions from: the API's, the event backbone's (the relay) and each
 * consumer's (as the deployment document names them), the workflow step runner's and the Cognito trigger's.
 * An entry serving several kinds of function appears once, with all its handlers.
 */
export const lambdaEntries = (documentPath = OPENAPI_DOCUMENT): BundleEntry[] => {
  const byEntry = new Map<string, Set<string>>();
  const add = (entry: string, handlers: readonly string[]) => {
    const known = byEntry.get(entry) ?? new Set<string>();
    for (const handler of handlers) known.add(handler);
    byEntry.set(entry, known);
  };
  for (const { entry, handlers } of apiLambdaEntries(documentPath)) add(entry, handlers);
  add(fromRoot(EVENTS_ENTRY), Object.values(OUTBOX_RELAY_HANDLERS));
  for (const consumer of loadConsumers(DEPLOYMENT_DOCUMENT_PATH)) add(consumer.entry, [consumer.handler]);
  add(fromRoot(WORKFLOWS_ENTRY), [WORKFLOW_STEP_HANDLER]);
  add(fromRoot(PRE_TOKEN_GENERATION_ENTRY), ['handler']);
  return [...byEntry].map(([entry, handlers]) => ({ entry, handlers: [...handlers].sort() }));
};

export const bundleEntry = async (entry: string, outDir: string): Promise<{ outfile: string; metafile: Metafile }> => {
  await mkdir(outDir, { recursive: true });
  const outfile = resolve(outDir, `${basename(entry).replace(/\.ts$/, '')}.mjs`);
  const result = await build({ ...lambdaEsbuildOptions(entry, outfile), metafile: true, logLevel: 'error' });
  return { outfile, metafile: result.metafile };
};

const PROBE = `
const started = performance.now();
const loaded = await import(process.env.BENCH_BUNDLE_URL);
const importMilliseconds = performance.now() - started;
process.stdout.write(JSON.stringify({ importMilliseconds, exports: Object.keys(loaded).sort() }));
`;

interface ProbeResult {
  importMilliseconds: number;
  processMilliseconds: number;
  exports: string[];
}

/** Imports the bundle in a brand-new Node process and reports how long the import (init) took. */
export const coldImport = (outfile: string, awsEndpoint: string): Promise<ProbeResult> =>
  new Promise((resolveProbe, reject) => {
    const spawned = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '--eval', PROBE], {
      env: {
        PATH: process.env.PATH ?? '',
        ...COLD_INIT_ENVIRONMENT,
        ...PROBE_AWS_ENVIRONMENT,
        AWS_ENDPOINT_URL: awsEndpoint,
        BENCH_BUNDLE_URL: pathToFileURL(outfile).href,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const processMilliseconds = performance.now() - spawned;
      if (code !== 0) {
        const message = stderr.split('\n').filter((line) => /^\w*(Error|Exception)\b|"message"/.test(line.trim()));
        reject(new Error(`exit ${code}: ${(message.join(' ') || stderr).slice(0, 400)}`));
        return;
      }
      const parsed = JSON.parse(stdout) as Omit<ProbeResult, 'processMilliseconds'>;
      resolveProbe({ ...parsed, processMilliseconds });
    });
  });

/** Groups a metafile's output bytes by npm package (or "(project)" for our own sources). */
const largestPackages = (metafile: Metafile, count = 4): { name: string; bytes: number }[] => {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const name = match?.[1] ?? '(project)';
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
};

export const measureBundles = async (
  options: { outDir: string; runs: number },
  log: (line: string) => void,
): Promise<BundleMeasurement[]> => {
  const measurements: BundleMeasurement[] = [];
  const aws = await startFakeAwsEndpoint();
  try {
    for (const { entry, handlers } of lambdaEntries()) {
      try {
        measurements.push(await measureBundle(entry, handlers, options, aws, log));
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        log(`  ${entry}: ${failure}`);
        measurements.push({
          entry,
          handlers,
          outfile: '',
          failure,
          awsCallsAtInit: [],
          bytes: Number.NaN,
          gzipBytes: Number.NaN,
          exports: [],
          importMilliseconds: [],
          processMilliseconds: [],
          importMedian: Number.NaN,
          processMedian: Number.NaN,
          largestPackages: [],
        });
      }
    }
  } finally {
    await aws.close();
  }
  return measurements;
};

const measureBundle = async (
  entry: string,
  handlers: string[],
  options: { outDir: string; runs: number },
  aws: FakeAwsEndpoint,
  log: (line: string) => void,
): Promise<BundleMeasurement> => {
  const { outfile, metafile } = await bundleEntry(entry, options.outDir);
  const bytes = (await stat(outfile)).size;
  const gzipBytes = gzipSync(await readFile(outfile), { level: 9 }).length;
  log(`  bundled ${entry}: ${(bytes / 1024).toFixed(1)} KiB; timing ${options.runs} cold imports`);
  // One unmeasured import first, so every measured one finds the file in the page cache.
  const callsBefore = aws.calls.length;
  const first = await coldImport(outfile, aws.url);
  const awsCallsAtInit = aws.calls.slice(callsBefore);
  const probes: ProbeResult[] = [];
  for (let run = 0; run < options.runs; run++) probes.push(await coldImport(outfile, aws.url));
  const importMilliseconds = probes.map((probe) => probe.importMilliseconds);
  const processMilliseconds = probes.map((probe) => probe.processMilliseconds);
  return {
    entry,
    handlers,
    outfile: join(options.outDir, basename(outfile)),
    awsCallsAtInit,
    bytes,
    gzipBytes,
    exports: first.exports,
    importMilliseconds,
    processMilliseconds,
    importMedian: median(importMilliseconds),
    processMedian: median(processMilliseconds),
    largestPackages: largestPackages(metafile),
  };
};
