import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AlgorithmSuiteIdentifier, buildClient, CommitmentPolicy } from '@aws-crypto/client-node';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry, lambdaEntries } from '../../bench/lambda-bundles.ts';
import { toSdkContext } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import {
  LAMBDA_BUNDLE_BUDGET_BYTES,
  LAMBDA_ESBUILD_TARGET,
  LAMBDA_ESM_REQUIRE_BANNER,
  LAMBDA_MODULE_ALIASES,
  lambdaBundlingOptions,
  lambdaBundlingOptionsFor,
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

  it("swaps the default credential chain for the Lambda one, readable-stream for Node's streams and unused packages for modules that say so, in NodejsFunction and esbuild alike", () => {
    // Prepare
    const credentials = resolve(PROJECT_ROOT, 'lambdas/adapters/lambda-credential-provider.ts');
    const streams = resolve(PROJECT_ROOT, 'lambdas/adapters/node-readable-stream.ts');
    const asn1 = resolve(PROJECT_ROOT, 'lambdas/adapters/unused-asn1.ts');
    const json11 = resolve(PROJECT_ROOT, 'lambdas/adapters/unused-json11.cts');
    const debug = resolve(PROJECT_ROOT, 'lambdas/adapters/silent-debug.cts');

    // Act
    const options = lambdaEsbuildOptions('entry.ts', 'out/index.mjs');

    // Assess
    expect(LAMBDA_MODULE_ALIASES).toEqual({
      '@aws-sdk/credential-provider-node': credentials,
      'readable-stream': streams,
      'asn1.js': asn1,
      json11,
      debug,
    });
    expect(options.alias).toEqual(LAMBDA_MODULE_ALIASES);
    expect(lambdaBundlingOptions.esbuildArgs).toEqual({
      '--alias:@aws-sdk/credential-provider-node': credentials,
      '--alias:readable-stream': streams,
      '--alias:asn1.js': asn1,
      '--alias:json11': json11,
      '--alias:debug': debug,
    });
  });

  describe("Alias: readable-stream as Node's streams, under the Encryption SDK", () => {
    // The fixture entry is the service's cipher over the raw AES keyring; imported here it runs on the real
    // readable-stream, bundled it runs on Node's streams.
    const entry = resolve(PROJECT_ROOT, 'test/infra/fixtures/handlers/content-cipher.lambda.ts');
    type CipherEntry = typeof import('./fixtures/handlers/content-cipher.lambda.ts');
    const written = JSON.parse(
      readFileSync(resolve(PROJECT_ROOT, 'test/fixtures/ciphertexts/local-key-4e635e7.json'), 'utf8'),
    ) as { context: { tenant: string; namespace: string; recordId: string }; plaintext: string; ciphertext: string };
    const key = readFileSync(resolve(PROJECT_ROOT, 'test/fixtures/ciphertexts/local-key-4e635e7.bin'));
    // Several frames of the SDK's framed format (4 KiB each), so the streams really carry the message.
    const plaintext = Buffer.from(Array.from({ length: 3000 }, (_, index) => `line ${index}\n`).join(''));
    const opened = (bytes: Buffer) => ({ plaintext: bytes.toString('base64') });
    let bundled: CipherEntry;
    let unbundled: CipherEntry;
    let inputs: string[];

    beforeAll(async () => {
      const outfile = join(outdir, 'content-cipher', 'index.mjs');
      const { metafile } = await build({ ...lambdaEsbuildOptions(entry, outfile), metafile: true });
      inputs = Object.keys(metafile.inputs);
      bundled = (await import(pathToFileURL(outfile).href)) as CipherEntry;
      unbundled = await import('./fixtures/handlers/content-cipher.lambda.ts');
    }, 60_000);

    it('bundles no readable-stream and no asn1.js', () => {
      expect(plaintext.byteLength).toBeGreaterThan(4 * 4096);
      expect(inputs.filter((input) => /node_modules\/(readable-stream|asn1\.js)\//.test(input))).toEqual([]);
      expect(inputs).toContain('lambdas/adapters/node-readable-stream.ts');
      expect(inputs).toContain('lambdas/adapters/unused-asn1.ts');
    });

    it('decrypts what it encrypts', async () => {
      // Act
      const ciphertext = await bundled.encrypt(key, plaintext, written.context);
      const answer = await bundled.decrypt(key, ciphertext, written.context);

      // Assess
      expect(answer).toEqual(opened(plaintext));
    });

    it('decrypts a message the unbundled SDK encrypted, and one an earlier release wrote', async () => {
      // Act
      const fromUnbundled = await unbundled.encrypt(key, plaintext, written.context);

      // Assess
      expect(await bundled.decrypt(key, fromUnbundled, written.context)).toEqual(opened(plaintext));
      expect(await bundled.decrypt(key, Buffer.from(written.ciphertext, 'base64'), written.context)).toEqual(
        opened(Buffer.from(written.plaintext)),
      );
    });

    it('writes messages the unbundled SDK decrypts', async () => {
      // Act
      const fromBundle = await bundled.encrypt(key, plaintext, written.context);

      // Assess
      expect(await unbundled.decrypt(key, fromBundle, written.context)).toEqual(opened(plaintext));
    });

    it('refuses a tampered message, or one for another context, as the unbundled SDK does', async () => {
      // Prepare
      const ciphertext = Buffer.from(await unbundled.encrypt(key, plaintext, written.context));
      const tampered = Buffer.from(ciphertext);
      tampered[tampered.length - 100] = (tampered[tampered.length - 100] ?? 0) ^ 1;
      const truncated = ciphertext.subarray(0, ciphertext.length - 10);
      const elsewhere = { ...written.context, tenant: 'globex' };

      // Act
      const cases = [
        [tampered, written.context],
        [truncated, written.context],
        [ciphertext, elsewhere],
      ] as const;
      const bundledAnswers = await Promise.all(cases.map(([bytes, context]) => bundled.decrypt(key, bytes, context)));
      const unbundledAnswers = await Promise.all(
        cases.map(([bytes, context]) => unbundled.decrypt(key, bytes, context)),
      );

      // Assess
      expect(bundledAnswers).toEqual(unbundledAnswers);
      expect(bundledAnswers).toEqual(cases.map(() => ({ refused: 'crypto.context_mismatch' })));
    });

    it('refuses a message under a signature suite as the unbundled cipher does, before the ASN.1 it does not carry', async () => {
      // The suite adds the public key to the message's context, which then is not the record's: refused unopened.
      // Prepare: a well-formed message for this key and context, signed (ECDSA P-384), by the SDK itself
      const { encrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);
      const own = Buffer.alloc(key.byteLength);
      own.set(key);
      const { result: signed } = await encrypt(localKeyring(own), plaintext, {
        encryptionContext: toSdkContext(written.context),
        suiteId: AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY_ECDSA_P384,
      });

      // Act
      const answers = [
        await bundled.decrypt(key, signed, written.context),
        await unbundled.decrypt(key, signed, written.context),
      ];

      // Assess
      expect(answers).toEqual([{ refused: 'crypto.context_mismatch' }, { refused: 'crypto.context_mismatch' }]);
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

  it('bundles the workflow step runner without the modules it does not run (of notes, only its search projection) or the OpenAPI document', async () => {
    // Act
    const { metafile } = await bundleEntry(
      resolve(PROJECT_ROOT, 'lambdas/app/workflows.lambda.ts'),
      join(outdir, 'wf'),
    );

    // Assess
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.some((input) => input.includes('lambdas/capabilities/learning/'))).toBe(true);
    expect(inputs.some((input) => input.includes('lambdas/capabilities/housekeeping/'))).toBe(true);
    expect(inputs).toContain('lambdas/capabilities/retrieval/search-index-rebuild.workflow.ts');
    expect(inputs).toContain('lambdas/capabilities/notes/notes-search.module.ts');
    const notRun =
      /lambdas\/capabilities\/(system|audit)\/|notes\/(notes\.module|notes-service|http\/notes\.handlers)|openapi\.json/;
    expect(inputs.filter((input) => notRun.test(input))).toEqual([]);
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

  describe('Opt-in backends: in a bundle only when its deployment uses them', () => {
    const retrieval = resolve(PROJECT_ROOT, 'lambdas/capabilities/retrieval/retrieval.lambda.ts');
    const built = async (backends: Parameters<typeof lambdaEsbuildOptions>[2], name: string) => {
      const outfile = join(outdir, 'backends', `${name}.mjs`);
      const { metafile } = await build({ ...lambdaEsbuildOptions(retrieval, outfile, backends), metafile: true });
      const inputs = Object.keys(metafile.inputs);
      return {
        bytes: readFileSync(outfile).byteLength,
        swapped: inputs.filter((input) => /node_modules\/(json11|debug|asn1\.js)\//.test(input)),
        openSearch: inputs.some(
          (input) => input.includes('@opensearch-project/') || input.includes('adapters/opensearch/'),
        ),
        bedrock: inputs.some(
          (input) => input.includes('client-bedrock-runtime') || input.includes('adapters/bedrock/'),
        ),
      };
    };

    it('tells NodejsFunction and esbuild the same constants', () => {
      // Act
      const options = lambdaBundlingOptionsFor({ searchIndex: 'opensearch', embedder: 'bedrock' });

      // Assess
      expect(options.define).toEqual({
        'process.env.MEMORY_HUB_BUNDLED_SEARCH_INDEX': '"opensearch"',
        'process.env.MEMORY_HUB_BUNDLED_EMBEDDER': '"bedrock"',
      });
      expect(lambdaEsbuildOptions('e.ts', 'o.mjs', { searchIndex: 'opensearch', embedder: 'bedrock' }).define).toEqual(
        options.define,
      );
      expect(lambdaBundlingOptions.define).toEqual({
        'process.env.MEMORY_HUB_BUNDLED_SEARCH_INDEX': '"embedded"',
        'process.env.MEMORY_HUB_BUNDLED_EMBEDDER': '"hashing"',
      });
    });

    it('bundles neither client by default, each one alone or both when asked, within the budget', async () => {
      // Act
      const plain = await built(undefined, 'plain');
      const openSearch = await built({ searchIndex: 'opensearch', embedder: 'hashing' }, 'opensearch');
      const bedrock = await built({ searchIndex: 'embedded', embedder: 'bedrock' }, 'bedrock');
      const both = await built({ searchIndex: 'opensearch', embedder: 'bedrock' }, 'both');

      // Assess
      expect([plain.openSearch, plain.bedrock]).toEqual([false, false]);
      expect([openSearch.openSearch, openSearch.bedrock]).toEqual([true, false]);
      expect([bedrock.openSearch, bedrock.bedrock]).toEqual([false, true]);
      expect([both.openSearch, both.bedrock]).toEqual([true, true]);
      for (const bundle of [plain, openSearch, bedrock, both]) {
        expect(bundle.bytes).toBeLessThanOrEqual(LAMBDA_BUNDLE_BUDGET_BYTES);
        expect(bundle.swapped).toEqual([]);
      }
    }, 120_000);
  });
});
