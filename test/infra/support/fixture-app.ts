/**
 * Builds the Memory Hub app the way `bin/app.ts` does (same context as cdk.json, same cdk-nag checks) into
 * a temporary directory, so a test file can synthesize it once and share the result between its tests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { createMemoryHubApp } from '../../../lib/memory-hub-app.ts';
import type { MemoryHubStack } from '../../../lib/memory-hub-stack.ts';
import { loadOpenApiDocument, type OpenApiDocument } from '../../../lib/openapi-operations.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const FIXTURE_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'test/infra/fixtures/openapi.fixture.json');

/** The context `npx cdk synth` runs with: every feature flag of cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export interface SynthesizedApp {
  readonly app: App;
  readonly stack: MemoryHubStack;
  readonly template: Template;
  readonly assembly: CloudAssembly;
  readonly document: OpenApiDocument;
  /** Deletes the temporary cloud assembly. */
  readonly dispose: () => void;
}

export interface SynthesizeOptions {
  /** @default the fixture document */
  readonly openApiDocumentPath?: string;
  readonly stage?: string;
  /** Extra context, e.g. to keep synthesis from throwing so the validation report can be read. */
  readonly context?: Record<string, unknown>;
  /**
   * Run CDK's built-in CloudFormation template validation, as `cdk synth` does. It takes seconds, so
   * only the test of the whole app turns it on.
   * @default false
   */
  readonly cloudFormationValidation?: boolean;
}

export function synthesizeApp(options: SynthesizeOptions = {}): SynthesizedApp {
  const outdir = mkdtempSync(join(tmpdir(), 'memory-hub-cdk-'));
  const openApiDocumentPath = options.openApiDocumentPath ?? FIXTURE_DOCUMENT_PATH;
  const { app, stack } = createMemoryHubApp({
    appProps: {
      outdir,
      context: { ...cdkJsonContext(), ...options.context },
      builtinCloudFormationValidation: options.cloudFormationValidation ?? false,
    },
    stage: options.stage ?? 'test',
    openApiDocumentPath,
  });
  const assembly = app.synth();
  return {
    app,
    stack,
    template: Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template),
    assembly,
    document: loadOpenApiDocument(openApiDocumentPath),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

/** A stack for testing one construct alone, synthesized without the slow built-in template validation. */
export function bareStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Test');
}
