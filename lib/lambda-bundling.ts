/**
 * How every Memory Hub Lambda is bundled, in one place.
 *
 * The CDK app (through `NodejsFunction`) and the bundle-size/cold-start benchmark (through esbuild
 * directly) both build from these constants, so what the benchmark measures is what gets deployed.
 */

import { fileURLToPath } from 'node:url';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * The most a Lambda entry's bundle may weigh (1 MB): a bundle is read and compiled on every cold start, so its
 * size is init time. A test and the benchmark hold every entry to it.
 */
export const LAMBDA_BUNDLE_BUDGET_BYTES = 1_000_000;

/** esbuild target matching `Runtime.NODEJS_24_X`. */
export const LAMBDA_ESBUILD_TARGET = 'node24';

/**
 * Prefer the ES-module build of dependencies (better tree shaking for `@aws-sdk/*` and `@smithy/*`),
 * falling back to CommonJS.
 */
export const LAMBDA_MAIN_FIELDS: readonly string[] = ['module', 'main'];

/**
 * ESM output has no `require`; CommonJS dependencies bundled into it call one (esbuild's `__require`
 * shim looks for a global). The alias keeps the import from colliding with anything bundled.
 */
export const LAMBDA_ESM_REQUIRE_BANNER =
  "import { createRequire as __memoryHubCreateRequire } from 'node:module'; " +
  'const require = __memoryHubCreateRequire(import.meta.url);';

/**
 * Packages swapped for a module of ours in every Lambda bundle. The SDK's default credential chain carries the
 * profile, SSO, web-identity and process providers and the STS/SSO clients they use, none of which has anything
 * to read in a Lambda sandbox: the bundles sign with the environment's credentials (or a container endpoint's)
 * instead, see `lambdas/adapters/lambda-credential-provider.ts`. `readable-stream`, a userland copy of Node's
 * streams that the Encryption SDK imports, becomes Node's own (`lambdas/adapters/node-readable-stream.ts`).
 * Three packages nothing deployed calls are swapped for modules that say so: `asn1.js` (the SDK's signature
 * suites), `json11` (the OpenSearch serializer's long numerals, turned off) and `debug` (the OpenSearch client's
 * debug lines, which carry request parameters and must stay out of logs).
 */
export const LAMBDA_MODULE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(
    new URL('../lambdas/adapters/lambda-credential-provider.ts', import.meta.url),
  ),
  'readable-stream': fileURLToPath(new URL('../lambdas/adapters/node-readable-stream.ts', import.meta.url)),
  'asn1.js': fileURLToPath(new URL('../lambdas/adapters/unused-asn1.ts', import.meta.url)),
  json11: fileURLToPath(new URL('../lambdas/adapters/unused-json11.cts', import.meta.url)),
  debug: fileURLToPath(new URL('../lambdas/adapters/silent-debug.cts', import.meta.url)),
};

/**
 * The opt-in backends a bundle is built with. `lambdas/composition/bundled-backends.ts` reads them from
 * `process.env.MEMORY_HUB_BUNDLED_*`, which the bundler replaces by these constants (`define`), so a bundle built
 * without one holds none of its code: the defaults bundle neither the OpenSearch nor the Bedrock client.
 */
export interface BundledBackends {
  readonly searchIndex: 'embedded' | 'opensearch';
  readonly embedder: 'hashing' | 'bedrock';
}

export const DEFAULT_BUNDLED_BACKENDS: BundledBackends = { searchIndex: 'embedded', embedder: 'hashing' };

/** The construct context under which a stack tells its functions which backends to bundle (`BundledBackends`). */
export const BUNDLED_BACKENDS_CONTEXT = 'memory-hub:bundled-backends';

/** esbuild `define`s for `backends`. */
export const backendDefines = (backends: BundledBackends = DEFAULT_BUNDLED_BACKENDS): Record<string, string> => ({
  'process.env.MEMORY_HUB_BUNDLED_SEARCH_INDEX': JSON.stringify(backends.searchIndex),
  'process.env.MEMORY_HUB_BUNDLED_EMBEDDER': JSON.stringify(backends.embedder),
});

/**
 * Bundling options for `NodejsFunction`.
 *
 * - ESM, because handlers build their backend with top-level await during init.
 * - `@aws-sdk/*` is bundled, not taken from the runtime: the exact versions in package-lock.json are
 *   the ones tested, and a bundled, tree-shaken client initialises faster than the runtime's copy.
 * - Never Docker: esbuild is a dev dependency, and synth must work offline on a machine without Docker.
 */
export const lambdaBundlingOptions: BundlingOptions = {
  format: OutputFormat.ESM,
  target: LAMBDA_ESBUILD_TARGET,
  mainFields: [...LAMBDA_MAIN_FIELDS],
  banner: LAMBDA_ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: false,
  bundleAwsSDK: true,
  externalModules: [],
  forceDockerBundling: false,
  logLevel: LogLevel.WARNING,
  esbuildArgs: Object.fromEntries(Object.entries(LAMBDA_MODULE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
  define: backendDefines(),
};

/** `lambdaBundlingOptions` for a deployment with the given opt-in backends. */
export const lambdaBundlingOptionsFor = (backends: BundledBackends = DEFAULT_BUNDLED_BACKENDS): BundlingOptions => ({
  ...lambdaBundlingOptions,
  define: backendDefines(backends),
});

/**
 * The same bundle as `lambdaBundlingOptions`, expressed as esbuild build options, for tools that call
 * esbuild directly (e.g. the benchmark reporting bundle size and init time per handler).
 *
 * @param entry path of the `*.lambda.ts` entry file
 * @param outfile where to write the bundle; use a `.mjs` name, as `NodejsFunction` does
 * @param backends the opt-in backends the bundle carries (none by default)
 */
export function lambdaEsbuildOptions(
  entry: string,
  outfile: string,
  backends: BundledBackends = DEFAULT_BUNDLED_BACKENDS,
): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_ESBUILD_TARGET,
    mainFields: [...LAMBDA_MAIN_FIELDS],
    banner: { js: LAMBDA_ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: false,
    external: [],
    alias: { ...LAMBDA_MODULE_ALIASES },
    define: backendDefines(backends),
    logLevel: 'warning',
  };
}
