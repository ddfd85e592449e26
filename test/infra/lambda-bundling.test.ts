import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LAMBDA_ESBUILD_TARGET,
  LAMBDA_ESM_REQUIRE_BANNER,
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
});
