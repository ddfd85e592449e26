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
import type { ServiceFunction } from '../../../lib/constructs/service-function.ts';
import { createMemoryHubApp, type MemoryHubAppOptions } from '../../../lib/memory-hub-app.ts';
import { type MemoryHubStack, OPENAPI_DOCUMENT_PATH } from '../../../lib/memory-hub-stack.ts';
import { loadOpenApiDocument, type OpenApiDocument } from '../../../lib/openapi-operations.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const FIXTURE_DOCUMENT_PATH = resolve(PROJECT_ROOT, 'test/infra/fixtures/openapi.fixture.json');

/**
 * Stand-ins for the generated documents and the entries other parts of the project provide, so a
 * construct test does not depend on (or bundle) the real runtime code. The workflows are the real,
 * committed `workflows.json`: its state machines are what the tests assert.
 */
export const FIXTURE_SOURCES = {
  workflowsDocumentPath: resolve(PROJECT_ROOT, 'lambdas/generated/workflows.json'),
  deploymentDocumentPath: resolve(PROJECT_ROOT, 'test/infra/fixtures/deployment.fixture.json'),
  eventsEntry: resolve(PROJECT_ROOT, 'test/infra/fixtures/handlers/events.lambda.ts'),
  workflowsEntry: resolve(PROJECT_ROOT, 'test/infra/fixtures/handlers/workflows.lambda.ts'),
} as const;

/** The fixture document's handler entries (`x-memory-hub.lambda.entry`), as the API functions are keyed by them. */
export const FIXTURE_ENTRIES = {
  things: 'test/infra/fixtures/handlers/things.lambda.ts',
  system: 'test/infra/fixtures/handlers/system.lambda.ts',
} as const;

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
  /**
   * `fixtures`: FIXTURE_SOURCES; `project`: the stack's defaults, the real generated documents and entries.
   * @default 'fixtures'
   */
  readonly sources?: 'fixtures' | 'project';
  readonly stage?: string;
  /** Extra context, e.g. to keep synthesis from throwing so the validation report can be read. */
  readonly context?: Record<string, unknown>;
  /**
   * Run CDK's built-in CloudFormation template validation, as `cdk synth` does. It takes seconds, so
   * only the test of the whole app turns it on.
   * @default false
   */
  readonly cloudFormationValidation?: boolean;
  /**
   * Bundle the functions with esbuild, as `cdk synth` does. Construct tests do not look into bundles
   * (lambda-bundling.test.ts does), so only the test of the whole app pays for it.
   * @default false
   */
  readonly bundle?: boolean;
  /** Further options of the app, e.g. `env`, `encryptionKeyArn` or `reservedConcurrency`. */
  readonly appOptions?: Omit<MemoryHubAppOptions, 'appProps' | 'stage' | 'openApiDocumentPath'>;
}

/**
 * The app of the fixture document and sources, built but not synthesized, for tests of what building it
 * accepts or refuses: the context of cdk.json (plus `context`), no bundling.
 */
export function buildFixtureApp(
  options: Omit<MemoryHubAppOptions, 'appProps'> & { readonly context?: Record<string, unknown> } = {},
): ReturnType<typeof createMemoryHubApp> {
  const { context, ...appOptions } = options;
  return createMemoryHubApp({
    appProps: { context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } },
    ...FIXTURE_SOURCES,
    openApiDocumentPath: FIXTURE_DOCUMENT_PATH,
    ...appOptions,
  });
}

export function synthesizeApp(options: SynthesizeOptions = {}): SynthesizedApp {
  const outdir = mkdtempSync(join(tmpdir(), 'memory-hub-cdk-'));
  const openApiDocumentPath = options.openApiDocumentPath ?? FIXTURE_DOCUMENT_PATH;
  const { app, stack } = createMemoryHubApp({
    appProps: {
      outdir,
      context: {
        ...cdkJsonContext(),
        // An empty list: no stack is bundled (assets get a placeholder).
        ...(options.bundle === true ? {} : { 'aws:cdk:bundling-stacks': [] }),
        ...options.context,
      },
      builtinCloudFormationValidation: options.cloudFormationValidation ?? false,
    },
    stage: options.stage ?? 'test',
    openApiDocumentPath,
    ...(options.sources === 'project' ? {} : FIXTURE_SOURCES),
    ...options.appOptions,
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

/** The API function serving `handler` of `entry`; throws when the app's document has no such operation. */
export function apiFunctionOf(
  synthesized: Pick<SynthesizedApp, 'stack'>,
  entry: string,
  handler: string,
): ServiceFunction {
  const serviceFunction = synthesized.stack.apiFunctions.functions.get(`${entry}#${handler}`);
  if (serviceFunction === undefined) throw new Error(`no function for ${entry}#${handler}`);
  return serviceFunction;
}

/** A stack for testing one construct alone, synthesized without the slow built-in template validation. */
export function bareStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Test');
}

/**
 * The app of the project's own documents and entries at stage `dev`, CDK's validation reported rather than thrown,
 * with the stack options a construct test varies (an opt-in's props).
 */
export const synthesizeProjectApp = (appOptions?: SynthesizeOptions['appOptions']): SynthesizedApp =>
  synthesizeApp({
    openApiDocumentPath: OPENAPI_DOCUMENT_PATH,
    sources: 'project',
    stage: 'dev',
    context: { '@aws-cdk/core:failSynthOnValidationErrors': false },
    ...(appOptions && { appOptions }),
  });

/** A cdk-nag pack's findings in a synthesized app's validation report, as `{rule} at {construct path}`. */
export const nagFindings = (synthesized: SynthesizedApp, pack: string): string[] => {
  const report = JSON.parse(readFileSync(join(synthesized.assembly.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: {
      pluginName: string;
      violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
    }[];
  };
  return (report.pluginReports.find((plugin) => plugin.pluginName === pack)?.violations ?? []).flatMap((violation) =>
    violation.violatingConstructs.map((where) => `${violation.ruleName} at ${where.constructPath}`),
  );
};
