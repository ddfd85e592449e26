// Architecture boundaries of Memory Hub, checked by `npm run boundaries` and test/architecture/boundaries.test.ts.
// Paths are relative to the project root; npm packages resolve to `node_modules/<name>/...` (type-only packages
// such as `aws-lambda` to `node_modules/@types/<name>/...`). Node built-ins have the dependency type `core`.

/** Packages that talk to AWS or stand in for it; domain code must stay runnable and testable without them. */
const AWS_AND_TRANSPORT_PACKAGES = [
  '^node_modules/(?:@aws-sdk|@aws-crypto|@smithy|@middy)/',
  '^node_modules/(?:@types/)?(?:aws-lambda|aws-jwt-verify|dynalite)/',
];

/** AWS SDK clients and their plumbing: only adapters (and local mode) talk to AWS services. */
const AWS_SDK_CLIENT_PACKAGES = '(?:@aws-sdk|@aws-crypto|@smithy|dynalite)/';

/** A capability's domain code: everything in its folder except its HTTP layer, module declaration and Lambda entry. */
const CAPABILITY_DOMAIN = {
  path: '^lambdas/capabilities/[^/]+/',
  pathNot: ['^lambdas/capabilities/[^/]+/http/', '[.]lambda[.]ts$', '[.]module[.]ts$'],
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-no-capability',
      comment:
        'The kernel is the shared domain machinery every capability builds on; it may import only itself, node ' +
        'built-ins, zod and ulid. Anything else would make every capability depend on it too.',
      severity: 'error',
      from: { path: '^lambdas/kernel/' },
      to: {
        pathNot: ['^lambdas/kernel/', '^node_modules/(?:zod|ulid)/'],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'domain-imports-no-aws-or-http',
      comment:
        'Domain code (the kernel and capability files outside http/, *.module.ts and *.lambda.ts) holds the rules ' +
        'of the service; it reaches AWS only through ports and HTTP only through the http/ folders, so it runs ' +
        'unchanged in local mode and in unit tests.',
      severity: 'error',
      from: { path: ['^lambdas/kernel/', CAPABILITY_DOMAIN.path], pathNot: CAPABILITY_DOMAIN.pathNot },
      to: { path: [...AWS_AND_TRANSPORT_PACKAGES, '^lambdas/http/'] },
    },
    {
      name: 'system-namespaces-only-in-system-jobs',
      comment:
        'namespaceFromStorageKey makes a Namespace from a stored key, not from a Scope: only the service’s own jobs ' +
        '(workflows, event consumers, the kernel’s event machinery) may use it. A request path that did could ' +
        'build a namespace from what a caller sent.',
      severity: 'error',
      from: {
        pathNot: [
          '[.](?:workflow|consumer)[.]ts$',
          '^lambdas/kernel/events/',
          '^lambdas/kernel/namespaces/',
          '^test/',
        ],
      },
      to: { path: '^lambdas/kernel/namespaces/system-namespaces[.]ts$' },
    },
    {
      name: 'capability-imports-no-other-capabilitys-internals',
      comment:
        'A capability may use another capability only through its public.ts or its module declaration; reaching into ' +
        'its other files couples the two and breaks as soon as the other one reorganises.',
      severity: 'error',
      from: { path: '^lambdas/capabilities/([^/]+)/' },
      to: {
        path: '^lambdas/capabilities/',
        pathNot: [
          '^lambdas/capabilities/$1/',
          '^lambdas/capabilities/(?<other>[^/]+)/(?:public|\\k<other>[.]module)[.]ts$',
        ],
      },
    },
    {
      name: 'capability-imports-only-kernel-http-and-module-contract',
      comment:
        'Capabilities are plugged into the service by the composition; apart from their Lambda entries they may ' +
        'import only the kernel, the HTTP layer, capabilities, the capability-module contract and generated JSON, ' +
        'never adapters, the compositions, the app or local mode.',
      severity: 'error',
      from: { path: '^lambdas/capabilities/', pathNot: '[.]lambda[.]ts$' },
      to: {
        pathNot: [
          '^lambdas/(?:kernel|http|capabilities)/',
          '^lambdas/composition/capability-module[.]ts$',
          '^lambdas/generated/[^/]+[.]json$',
          '^node_modules/',
        ],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'capability-entry-imports-no-app-or-local',
      comment:
        "A capability's Lambda entry is a composition root, so it may also import the compositions and adapters, " +
        'but not the app (which lists every capability) nor local mode.',
      severity: 'error',
      from: { path: '^lambdas/capabilities/.+[.]lambda[.]ts$' },
      to: {
        pathNot: [
          '^lambdas/(?:kernel|http|capabilities|composition|adapters)/',
          '^lambdas/generated/[^/]+[.]json$',
          '^node_modules/',
        ],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'http-imports-no-capability-or-adapter',
      comment:
        'The HTTP layer is shared by every capability; it may import only itself, the kernel, node built-ins and npm ' +
        'packages other than AWS SDK clients (middy and the aws-lambda types are fine), so it never depends on a ' +
        'particular capability, adapter or deployment.',
      severity: 'error',
      from: { path: '^lambdas/http/' },
      to: {
        pathNot: ['^lambdas/(?:http|kernel)/', `^node_modules/(?!${AWS_SDK_CLIENT_PACKAGES})`],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'adapters-import-no-capability-http-or-app',
      comment:
        'Adapters implement kernel ports; they may import only adapters, the kernel and packages. Reaching up into ' +
        'capabilities, HTTP, the compositions, the app or local mode would invert the dependency rule.',
      severity: 'error',
      from: { path: '^lambdas/adapters/' },
      to: {
        pathNot: ['^lambdas/(?:adapters|kernel)/', '^node_modules/'],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'composition-imports-no-app-or-local-or-capability',
      comment:
        'The composition sits below the capabilities and receives their modules as values; importing a capability, ' +
        'the app or local mode would tie it to one module list. It may import kernel, http, adapters and generated JSON.',
      severity: 'error',
      from: { path: '^lambdas/composition/' },
      to: {
        pathNot: [
          '^lambdas/(?:composition|kernel|http|adapters)/',
          '^lambdas/generated/[^/]+[.]json$',
          '^node_modules/',
        ],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'lib-imports-no-runtime',
      comment:
        'The CDK app must not bundle runtime code into the synth; it reads the generated JSON documents with fs instead.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^lambdas/' },
    },
    {
      name: 'no-circular',
      comment:
        'Import cycles (type-only ones included) make load order fragile and layers impossible to reason about; ' +
        'break them with a port or by moving the shared piece down a layer.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that cannot be resolved to a file or package is a typo or a missing dependency; it would also slip ' +
        'past every other rule.',
      severity: 'error',
      from: { path: '^(?:lambdas|lib)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Packages are leaves here: their own imports are not ours to check.
    doNotFollow: { path: ['node_modules'] },
    // The project is ESM TypeScript; no AMD or CommonJS to look for.
    moduleSystems: ['es6', 'cjs'],
    // Type-only imports are dependencies too (they count for cycles and layering).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      // Imports name their `.ts`/`.json` extension (allowImportingTsExtensions); the rest is for packages.
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
