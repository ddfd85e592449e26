import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleEntry, lambdaEntries } from '../../bench/lambda-bundles.ts';
import {
  LAMBDA_BUNDLE_BUDGET_BYTES,
  LAMBDA_ESBUILD_TARGET,
  LAMBDA_ESM_REQUIRE_BANNER,
  LAMBDA_MODULE_ALIASES,
  lambdaBundlingOptions,
  lambdaEsbuildOptions,
} from '../../lib/lambda-bundling.ts';
import { PROJECT_ROOT } from './support/fixture-app.ts';

describe('Module: lambda-bundling', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'memory-hub-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('bundles for NodejsFunction as ESM for Node.js 24, minified, without source maps, with the AWS SDK inside', () => {
    // Assess
    expect(lambdaBundlingOptions).toMatchObject({
      format: OutputFormat.ESM,
      target: 'node24',
      minify: true,
      sourceMap: false,
      banner: LAMBDA_ESM_REQUIRE_BANNER,
      externalModules: [],
      bundleAwsSDK: true,
      forceDockerBundling: false,
    });
  });

  it('gives esbuild the same options', () => {
    // Act
    const options = lambdaEsbuildOptions('entry.ts', 'out/index.mjs');

    // Assess
    expect(options).toMatchObject({
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: LAMBDA_ESBUILD_TARGET,
      minify: lambdaBundlingOptions.minify,
      sourcemap: false,
      banner: { js: lambdaBundlingOptions.banner },
      mainFields: lambdaBundlingOptions.mainFields,
      external: [],
    });
  });

  it('swaps the default credential chain for the Lambda one in NodejsFunction and esbuild alike', () => {
    // Prepare
    const swapped = resolve(PROJECT_ROOT, 'lambdas/adapters/lambda-credential-provider.ts');

    // Act
    const options = lambdaEsbuildOptions('entry.ts', 'out/index.mjs');

    // Assess
    expect(LAMBDA_MODULE_ALIASES).toEqual({ '@aws-sdk/credential-provider-node': swapped });
    expect(options.alias).toEqual(LAMBDA_MODULE_ALIASES);
    expect(lambdaBundlingOptions.esbuildArgs).toEqual({ '--alias:@aws-sdk/credential-provider-node': swapped });
  });

  it('produces a bundle that loads on Node.js 24 with top-level await and require', async () => {
    // Prepare
    const outfile = join(outdir, 'things', 'index.mjs');

    // Act
    await build(lambdaEsbuildOptions(resolve(PROJECT_ROOT, 'test/infra/fixtures/handlers/things.lambda.ts'), outfile));
    const bundle = (await import(pathToFileURL(outfile).href)) as {
      getThing: () => Promise<{ statusCode: number; body: string }>;
    };

    // Assess
    expect(readFileSync(outfile, 'utf8').startsWith(LAMBDA_ESM_REQUIRE_BANNER)).toBe(true);
    await expect(bundle.getThing()).resolves.toEqual({ statusCode: 200, body: '{"ready":true}' });
  });

  it('bundles the workflow step runner without the modules it does not run or the OpenAPI document', async () => {
    // Act
    const { metafile } = await bundleEntry(
      resolve(PROJECT_ROOT, 'lambdas/app/workflows.lambda.ts'),
      join(outdir, 'wf'),
    );

    // Assess
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.some((input) => input.includes('lambdas/capabilities/learning/'))).toBe(true);
    expect(inputs.some((input) => input.includes('lambdas/capabilities/housekeeping/'))).toBe(true);
    expect(inputs.filter((input) => /lambdas\/capabilities\/(notes|system|audit)\/|openapi\.json/.test(input))).toEqual(
      [],
    );
  });

  it('keeps every entry the app deploys within the bundle budget of 1 MB', async () => {
    // Prepare
    const entries = lambdaEntries();

    // Act: built the way the app deploys them, one after another (esbuild already uses every core)
    const sizes: Record<string, number> = {};
    for (const { entry } of entries) {
      const { outfile } = await bundleEntry(resolve(PROJECT_ROOT, entry), join(outdir, 'entries'));
      sizes[entry] = readFileSync(outfile).byteLength;
    }

    // Assess
    expect(entries.length).toBeGreaterThan(5);
    const over = Object.entries(sizes).filter(([, bytes]) => bytes > LAMBDA_BUNDLE_BUDGET_BYTES);
    expect(over).toEqual([]);
  }, 120_000);
});
