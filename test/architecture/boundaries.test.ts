import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG_FILE = join(ROOT, '.dependency-cruiser.cjs');
/** The folders `npm run boundaries` cruises. */
const CRUISED_FOLDERS = ['lambdas', 'lib', 'bin', 'bench', 'test'];

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

let projectOptions: ICruiseOptions;

/** Cruises `folders` of the tree at `baseDir` with the project's rules, as `npm run boundaries` does. */
const cruiseTree = async (baseDir: string, folders: readonly string[]): Promise<ICruiseResult> => {
  const tsConfigFile = join(baseDir, 'tsconfig.json');
  const { output } = await cruise(
    folders.filter((folder) => existsSync(join(baseDir, folder))),
    { ...projectOptions, baseDir, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  if (typeof output === 'string') throw new Error('dependency-cruiser returned text; expected the JSON result');
  return output;
};

const violationsOf = (result: ICruiseResult): Violation[] =>
  result.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }));

/** One import to plant: `to` is a project path (the file is created unless `absent`) or a package name. */
interface PlantedImport {
  readonly from: string;
  readonly to: string;
  readonly typeOnly?: boolean;
  readonly absent?: boolean;
}

const isProjectPath = (target: string): boolean => CRUISED_FOLDERS.some((folder) => target.startsWith(`${folder}/`));

const specifierOf = (from: string, to: string): string => {
  if (!isProjectPath(to)) return to;
  const path = relative(dirname(from), to);
  return path.startsWith('.') ? path : `./${path}`;
};

const statementOf = ({ from, to, typeOnly }: PlantedImport): string => {
  const specifier = specifierOf(from, to);
  if (to.endsWith('.json')) return `import '${specifier}' with { type: 'json' };`;
  return typeOnly ? `import type { Thing } from '${specifier}';` : `import '${specifier}';`;
};

/** Stand-ins for the packages the rules name, so package imports resolve in a throwaway tree. */
const STUB_PACKAGES: Readonly<Record<string, string>> = {
  'node_modules/@aws-sdk/client-dynamodb': 'index.js',
  'node_modules/@middy/core': 'index.js',
  'node_modules/zod': 'index.js',
  'node_modules/@types/aws-lambda': 'index.d.ts',
};

const temporaryTrees: string[] = [];

/** Writes a minimal project (tsconfig, package stubs) with the planted imports into a fresh temp directory. */
const plantTree = (imports: readonly PlantedImport[]): string => {
  const baseDir = mkdtempSync(join(tmpdir(), 'memory-hub-boundaries-'));
  temporaryTrees.push(baseDir);
  const write = (path: string, content: string): void => {
    mkdirSync(dirname(join(baseDir, path)), { recursive: true });
    writeFileSync(join(baseDir, path), content);
  };
  write('package.json', JSON.stringify({ name: 'planted', private: true, type: 'module' }));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        allowImportingTsExtensions: true,
        noEmit: true,
      },
    }),
  );
  for (const [folder, entry] of Object.entries(STUB_PACKAGES)) {
    const name = folder.replace('node_modules/', '');
    write(`${folder}/package.json`, JSON.stringify({ name, version: '0.0.0', main: entry, types: 'index.d.ts' }));
    write(`${folder}/${entry}`, 'export {};\n');
  }

  const statements = new Map<string, string[]>();
  for (const planted of imports) {
    statements.set(planted.from, [...(statements.get(planted.from) ?? []), statementOf(planted)]);
    if (isProjectPath(planted.to) && !planted.absent && !statements.has(planted.to)) statements.set(planted.to, []);
  }
  for (const [path, lines] of statements) {
    write(path, path.endsWith('.json') ? '{}\n' : [...lines, 'export type Thing = unknown;', ''].join('\n'));
  }
  return baseDir;
};

const violationsInPlantedTree = async (imports: readonly PlantedImport[]): Promise<Violation[]> =>
  violationsOf(await cruiseTree(plantTree(imports), CRUISED_FOLDERS));

interface PlantedViolation {
  readonly rule: string;
  readonly plants: string;
  readonly imports: readonly PlantedImport[];
}

const PLANTED_VIOLATIONS: readonly PlantedViolation[] = [
  {
    rule: 'kernel-imports-no-capability',
    plants: 'the kernel importing a capability',
    imports: [{ from: 'lambdas/kernel/records/record-service.ts', to: 'lambdas/capabilities/notes/notes-service.ts' }],
  },
  {
    rule: 'kernel-imports-no-capability',
    plants: 'the kernel importing an adapter',
    imports: [{ from: 'lambdas/kernel/kernel.ts', to: 'lambdas/adapters/memory/in-memory-record-store.ts' }],
  },
  {
    rule: 'domain-imports-no-aws-or-http',
    plants: 'capability domain code importing the DynamoDB client',
    imports: [{ from: 'lambdas/capabilities/notes/notes-service.ts', to: '@aws-sdk/client-dynamodb' }],
  },
  {
    rule: 'domain-imports-no-aws-or-http',
    plants: 'capability domain code importing aws-lambda types (type-only)',
    imports: [{ from: 'lambdas/capabilities/learning/beliefs-service.ts', to: 'aws-lambda', typeOnly: true }],
  },
  {
    rule: 'domain-imports-no-aws-or-http',
    plants: 'capability domain code importing the HTTP layer',
    imports: [{ from: 'lambdas/capabilities/notes/notes-service.ts', to: 'lambdas/http/responses.ts' }],
  },
  {
    rule: 'system-namespaces-only-in-system-jobs',
    plants: 'HTTP handlers building a namespace from a storage key',
    imports: [
      {
        from: 'lambdas/capabilities/notes/http/notes.handlers.ts',
        to: 'lambdas/kernel/namespaces/system-namespaces.ts',
      },
    ],
  },
  {
    rule: 'system-namespaces-only-in-system-jobs',
    plants: 'a capability service building a namespace from a storage key',
    imports: [
      { from: 'lambdas/capabilities/notes/notes-service.ts', to: 'lambdas/kernel/namespaces/system-namespaces.ts' },
    ],
  },
  {
    rule: 'capability-imports-no-other-capabilitys-internals',
    plants: "learning importing guardrails' service instead of its public.ts",
    imports: [
      {
        from: 'lambdas/capabilities/learning/applied-memory-service.ts',
        to: 'lambdas/capabilities/guardrails/guardrails-service.ts',
      },
    ],
  },
  {
    rule: 'capability-imports-no-other-capabilitys-internals',
    plants: "one capability's HTTP handlers importing another's",
    imports: [
      {
        from: 'lambdas/capabilities/notes/http/notes.handlers.ts',
        to: 'lambdas/capabilities/guardrails/http/guardrails.handlers.ts',
      },
    ],
  },
  {
    rule: 'capability-imports-only-kernel-http-and-module-contract',
    plants: 'capability domain code importing an adapter',
    imports: [
      { from: 'lambdas/capabilities/notes/notes-service.ts', to: 'lambdas/adapters/memory/in-memory-record-store.ts' },
    ],
  },
  {
    rule: 'capability-imports-only-kernel-http-and-module-contract',
    plants: 'capability HTTP handlers importing the AWS composition',
    imports: [
      { from: 'lambdas/capabilities/notes/http/notes.handlers.ts', to: 'lambdas/composition/aws-application.ts' },
    ],
  },
  {
    rule: 'capability-imports-only-kernel-http-and-module-contract',
    plants: 'a module declaration importing the app',
    imports: [{ from: 'lambdas/capabilities/notes/notes.module.ts', to: 'lambdas/app/capabilities.ts' }],
  },
  {
    rule: 'capability-entry-imports-no-app-or-local',
    plants: 'a Lambda entry importing local mode',
    imports: [{ from: 'lambdas/capabilities/notes/notes.lambda.ts', to: 'lambdas/local/local-server.ts' }],
  },
  {
    rule: 'http-imports-no-capability-or-adapter',
    plants: 'the HTTP layer importing a capability',
    imports: [{ from: 'lambdas/http/operation.ts', to: 'lambdas/capabilities/notes/notes-service.ts' }],
  },
  {
    rule: 'http-imports-no-capability-or-adapter',
    plants: 'the HTTP layer importing an adapter',
    imports: [{ from: 'lambdas/http/middleware/http-errors.ts', to: 'lambdas/adapters/aws-service-errors.ts' }],
  },
  {
    rule: 'http-imports-no-capability-or-adapter',
    plants: 'the HTTP layer importing an AWS SDK client',
    imports: [{ from: 'lambdas/http/api-event.ts', to: '@aws-sdk/client-dynamodb' }],
  },
  {
    rule: 'adapters-import-no-capability-http-or-app',
    plants: 'an adapter importing the HTTP layer',
    imports: [{ from: 'lambdas/adapters/dynamodb/memory-table.ts', to: 'lambdas/http/responses.ts' }],
  },
  {
    rule: 'composition-imports-no-app-or-local-or-capability',
    plants: 'the composition importing a capability module',
    imports: [{ from: 'lambdas/composition/module-tables.ts', to: 'lambdas/capabilities/notes/notes.module.ts' }],
  },
  {
    rule: 'lib-imports-no-runtime',
    plants: 'the CDK app importing runtime code (type-only)',
    imports: [
      { from: 'lib/constructs/memory-table.ts', to: 'lambdas/adapters/dynamodb/memory-table.ts', typeOnly: true },
    ],
  },
  {
    rule: 'no-circular',
    plants: 'a cycle between two test helpers, one edge type-only',
    imports: [
      { from: 'test/support/first.ts', to: 'test/support/second.ts', typeOnly: true },
      { from: 'test/support/second.ts', to: 'test/support/first.ts' },
    ],
  },
  {
    rule: 'not-to-unresolvable',
    plants: 'a typo in a runtime import path',
    imports: [{ from: 'lambdas/kernel/time/clock.ts', to: 'lambdas/kernel/time/clokc.ts', absent: true }],
  },
  {
    rule: 'not-to-unresolvable',
    plants: 'a typo in a CDK import path',
    imports: [{ from: 'lib/memory-hub-stack.ts', to: 'lib/constructs/memroy-table.ts', absent: true }],
  },
];

/** Imports the architecture allows, some of them close to a boundary; none may be reported. */
const ALLOWED_IMPORTS: readonly PlantedImport[] = [
  { from: 'lambdas/capabilities/learning/applied-memory-service.ts', to: 'lambdas/capabilities/guardrails/public.ts' },
  {
    from: 'lambdas/capabilities/learning/learning.module.ts',
    to: 'lambdas/capabilities/guardrails/guardrails.module.ts',
  },
  { from: 'lambdas/capabilities/learning/learning.module.ts', to: 'lambdas/composition/capability-module.ts' },
  { from: 'lambdas/capabilities/learning/beliefs-service.ts', to: 'lambdas/kernel/records/record-service.ts' },
  { from: 'lambdas/capabilities/learning/beliefs-service.ts', to: 'zod' },
  { from: 'lambdas/capabilities/notes/notes.lambda.ts', to: 'lambdas/composition/aws-application.ts' },
  { from: 'lambdas/capabilities/notes/notes.lambda.ts', to: 'lambdas/adapters/dynamodb/memory-table.ts' },
  { from: 'lambdas/capabilities/notes/notes.lambda.ts', to: '@aws-sdk/client-dynamodb' },
  { from: 'lambdas/capabilities/notes/http/notes.handlers.ts', to: 'lambdas/http/responses.ts' },
  { from: 'lambdas/capabilities/notes/http/notes.handlers.ts', to: '@middy/core' },
  { from: 'lambdas/capabilities/notes/http/notes.handlers.ts', to: 'aws-lambda', typeOnly: true },
  { from: 'lambdas/capabilities/system/http/system.handlers.ts', to: 'lambdas/generated/openapi.json' },
  { from: 'lambdas/http/operation.ts', to: 'lambdas/kernel/records/record-service.ts' },
  { from: 'lambdas/http/operation.ts', to: '@middy/core' },
  { from: 'lambdas/http/operation.ts', to: 'aws-lambda', typeOnly: true },
  { from: 'lambdas/kernel/records/record-service.ts', to: 'zod' },
  {
    from: 'lambdas/capabilities/learning/belief-synthesis.workflow.ts',
    to: 'lambdas/kernel/namespaces/system-namespaces.ts',
  },
  { from: 'lambdas/capabilities/audit/audit.consumer.ts', to: 'lambdas/kernel/namespaces/system-namespaces.ts' },
  { from: 'lambdas/kernel/events/reconciler.ts', to: 'lambdas/kernel/namespaces/system-namespaces.ts' },
  { from: 'lambdas/kernel/records/record-service.ts', to: 'node:crypto' },
  { from: 'lambdas/adapters/dynamodb/memory-table.ts', to: '@aws-sdk/client-dynamodb' },
  { from: 'lambdas/adapters/dynamodb/memory-table.ts', to: 'lambdas/kernel/records/record-service.ts' },
  { from: 'lambdas/composition/aws-application.ts', to: 'lambdas/generated/deployment.json' },
  { from: 'lambdas/composition/aws-application.ts', to: 'lambdas/http/operation.ts' },
  { from: 'lambdas/app/capabilities.ts', to: 'lambdas/capabilities/notes/notes.module.ts' },
  { from: 'lambdas/local/local-server.ts', to: 'lambdas/app/capabilities.ts' },
  { from: 'test/unit/notes.test.ts', to: 'lambdas/capabilities/notes/notes-service.ts' },
];

describe('Architecture: boundaries', () => {
  let projectResult: ICruiseResult;

  beforeAll(async () => {
    projectOptions = await extractDepcruiseOptions(CONFIG_FILE);
    projectResult = await cruiseTree(ROOT, CRUISED_FOLDERS);
  });

  afterAll(() => {
    for (const baseDir of temporaryTrees) rmSync(baseDir, { recursive: true, force: true });
  });

  it('finds no boundary violations in the project', () => {
    expect(violationsOf(projectResult)).toEqual([]);
  });

  it('resolves the project’s .ts-extension and type-only imports (the clean result is not vacuous)', () => {
    const resolvedFrom = (source: string): string[] =>
      projectResult.modules.find((module) => module.source === source)?.dependencies.map(({ resolved }) => resolved) ??
      [];
    expect(resolvedFrom('lambdas/capabilities/learning/applied-memory-service.ts')).toContain(
      'lambdas/capabilities/guardrails/public.ts',
    );
    expect(resolvedFrom('lambdas/http/api-event.ts')).toContain('node_modules/@types/aws-lambda/index.d.ts');
  });

  it('proves every configured rule with at least one planted violation', () => {
    const configured = (projectOptions.ruleSet?.forbidden ?? []).map(({ name }) => name);
    expect(new Set(PLANTED_VIOLATIONS.map(({ rule }) => rule))).toEqual(new Set(configured));
  });

  it.each(PLANTED_VIOLATIONS)('$rule catches $plants', async ({ rule, imports }) => {
    const violations = await violationsInPlantedTree(imports);
    // The rule under test fires and no other, and only at planted imports (a cycle is reported once, not per edge).
    expect(new Set(violations.map(({ rule: name }) => name))).toEqual(new Set([rule]));
    const plantedFrom = new Set(imports.map(({ from }) => from));
    expect(violations.filter(({ from }) => !plantedFrom.has(from))).toEqual([]);
  });

  it('reports none of the imports the architecture allows', async () => {
    expect(await violationsInPlantedTree(ALLOWED_IMPORTS)).toEqual([]);
  });
});
