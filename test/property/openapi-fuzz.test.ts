import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { CAPABILITIES } from '../../lambdas/app/capabilities.ts';
import { DEFAULT_CONFIG } from '../../lambdas/app/service-tables.ts';
import { operationsOf } from '../../lambdas/composition/module-tables.ts';
import { FuzzWorld, fixtureKindOf, TOKEN_KINDS } from '../support/fuzz-fixtures.ts';
import { errorBodyViolations, violationsOf } from '../support/fuzz-oracle.ts';
import {
  CanaryMint,
  describedRequest,
  handBuiltRequest,
  materialized,
  percentEncoded,
  type SentRequest,
} from '../support/fuzz-requests.ts';
import { LocalApi } from '../support/local-api.ts';
import {
  CANARY,
  type CursorPlan,
  cursorPlanOf,
  type RequestPlan,
  requestPlanOf,
  TARGET_MUTATIONS,
  type TargetPlan,
  targetPlanOf,
  validRequestPlanOf,
} from '../support/openapi-arbitraries.ts';
import { type DocumentedOperation, documentedOperations, readOpenApiDocument } from '../support/openapi-document.ts';
import { closePooledConnections, type PooledResponse, sendPooled } from '../support/pooled-raw-http.ts';

/*
 * Every operation of the OpenAPI document, fuzzed over real HTTP against the local server: valid-shaped and
 * hostile bodies, headers, path segments, query values, cursors (real ones, other listings' ones, forged ones)
 * and tokens (valid, forged, and valid with odd claims). Sweeps first send every kind of token to every
 * operation, every real cursor to every listing and a dot segment in every path parameter, so that those
 * classes of defect are found every time; then fast-check explores. Deterministic: a fixed seed, which
 * MEMORY_HUB_FUZZ_SEED overrides; MEMORY_HUB_FUZZ_RUNS sets the runs per operation for a longer local run.
 */

const SEED = Number(process.env.MEMORY_HUB_FUZZ_SEED ?? 20_261_108);
/** Random requests per operation: with the sweeps about 12,000 requests, some 25 s of one core. */
const RUNS = Number(process.env.MEMORY_HUB_FUZZ_RUNS ?? 200);

const document = readOpenApiDocument();
const operations = documentedOperations(document);
const listings = operations.filter(
  (operation) =>
    operation.method === 'GET' &&
    operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor'),
);
const fixtureParametersOf = (operation: DocumentedOperation): Set<string> =>
  new Set(
    operation.parameters
      .filter((parameter) => parameter.in === 'path' && fixtureKindOf(operation.path, parameter.name) !== undefined)
      .map((parameter) => parameter.name),
  );
const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * The defaults, with each app client's throttle (where the configuration has one) far above what the fuzz sends:
 * every token here is of one client, and a 429 would stand in front of what is being fuzzed. The throttle has
 * tests of its own.
 */
const unthrottledConfig = (): typeof DEFAULT_CONFIG => {
  const config = structuredClone(DEFAULT_CONFIG) as typeof DEFAULT_CONFIG & {
    throttle?: { requestsPerSecond: number };
  };
  if (config.throttle) config.throttle.requestsPerSecond = 100_000;
  return config;
};

const replayHint = `Replay: MEMORY_HUB_FUZZ_SEED=${SEED} npx vitest run test/property/openapi-fuzz.test.ts`;

/** fast-check prints its own seed and path; say how to replay the whole suite with it too. */
const assertProperty = async <T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> => {
  try {
    await fc.assert(property, { seed: SEED, numRuns, includeErrorInReport: true });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n\n${replayHint}`);
  }
};

const failure = (violations: readonly string[], request: string, response: PooledResponse): string =>
  [
    ...violations.map((violation) => `- ${violation}`),
    '--- request',
    request,
    `--- response ${response.status}`,
    response.text.length > 600 ? `${response.text.slice(0, 600)}…` : response.text,
  ].join('\n');

/** A sweep's findings, all at once: how many of each kind, and the first example of each. */
const expectNoFindings = (findings: readonly string[]): void => {
  if (findings.length === 0) return;
  const kinds = new Map<string, { count: number; example: string }>();
  for (const finding of findings) {
    const lines = finding.split('\n');
    const token = lines.find((line) => line.startsWith('# ')) ?? '';
    const kind = `${lines[0] ?? ''} ${token}`.replaceAll(/zqcanary[0-9a-z]{6}/g, '…');
    const known = kinds.get(kind);
    if (known) known.count++;
    else kinds.set(kind, { count: 1, example: finding });
  }
  const summary = [...kinds].map(([kind, { count }]) => `${count} × ${kind}`).join('\n');
  const examples = [...kinds.values()].map(({ example }) => example).join('\n\n');
  throw new Error(`${findings.length} finding(s):\n${summary}\n\nThe first of each:\n\n${examples}\n\n${replayHint}`);
};

describe('Property: every operation of the OpenAPI document under fuzzing, over real HTTP', () => {
  let api: LocalApi;
  let world: FuzzWorld;
  const mint = new CanaryMint();
  /** Canaries of requests that succeeded (or failed on the server's side, which may have stored them). */
  const storedBefore = new Set<string>();
  /** Per operation, a request the owner (or the org admin) got a 2xx for, to be sent with other tokens. */
  const references = new Map<string, RequestPlan>();

  const oracle = () => ({ document, storedBefore, fixtureSecrets: world.secrets, fixtureTenant: 'acme' });

  /**
   * What a response tells about the state: canaries it (or the twin's, sent the same body) may have stored,
   * fixtures it deleted or changed.
   */
  const remember = (
    operation: DocumentedOperation,
    sent: SentRequest,
    response: PooledResponse,
    twinStatus?: number,
  ): void => {
    const success = isSuccess(response.status);
    const mayHaveStored = (status: number | undefined) => status !== undefined && (isSuccess(status) || status >= 500);
    if (mayHaveStored(response.status) || mayHaveStored(twinStatus))
      for (const canary of sent.storable) storedBefore.add(canary);
    for (const canary of sent.claims) storedBefore.add(canary);
    const etag = response.headers.etag;
    if (success) world.observe(operation, sent.fixtures, typeof etag === 'string' ? etag : undefined);
  };

  /** Sends a plan (the honest twin of a group-smuggling token first) and says what is wrong with the answer. */
  const exchange = async (plan: RequestPlan, operation: DocumentedOperation) => {
    const sent = await materialized(plan, operation, world, mint);
    const twin = sent.twin && (await sendPooled(api.server.url, sent.twin));
    const response = await sendPooled(api.server.url, sent);
    const violations = violationsOf(sent, response, oracle(), twin?.status);
    remember(operation, sent, response, twin?.status);
    return { sent, response, violations, report: () => failure(violations, describedRequest(sent), response) };
  };

  beforeAll(async () => {
    api = await LocalApi.start({ config: new StaticConfigProvider(unthrottledConfig()) });
    world = await FuzzWorld.create(api);
    await world.harvestCursors(operations);
  }, 120_000);

  afterAll(async () => {
    closePooledConnections();
    await api.stop();
  });

  it('fuzzes every route the service serves: the document lists them all, each once', () => {
    // Prepare
    const served = operationsOf(CAPABILITIES).flatMap((operation) =>
      operation.routes.map((route) => `${route.method} ${route.path} ${route.operationId}`),
    );

    // Act
    const fuzzed = operations.map((operation) => `${operation.method} ${operation.path} ${operation.operationId}`);

    // Assess
    expect(fuzzed.length).toBeGreaterThan(0);
    expect(new Set(fuzzed).size).toBe(fuzzed.length);
    expect([...fuzzed].sort()).toEqual([...served].sort());
    expect([...world.listings.values()].filter((listing) => listing.cursor !== undefined).length).toBeGreaterThan(1);
  });

  describe('Cursors', () => {
    it('continues its own listing, and answers every other real cursor with a page or a 422, on every listing', async () => {
      const findings: string[] = [];
      const harvested = [...world.listings].filter(([, listing]) => listing.cursor !== undefined);
      for (const operation of listings) {
        const listing = world.listings.get(operation.operationId);
        if (!listing) continue;
        const since = operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'since');
        // Its own query; then the same cursor under another query, where the listing has one to change.
        const queries = [
          '',
          ...(since ? [`&since=${percentEncoded(new Date(Date.now() + 86_400_000).toISOString())}`] : []),
          ...(since ? ['&since=2000-01-01T00%3A00%3A00Z'] : []),
        ];
        for (const [origin, { cursor }] of harvested)
          for (const query of queries) {
            // Prepare
            const token = world.listerOf(operation.operationId);
            const sent = handBuiltRequest(operation, {
              method: 'GET',
              target: `${listing.path}?cursor=${percentEncoded(cursor ?? '')}${query}`,
              headers: [['authorization', `Bearer ${token}`]],
            });

            // Act
            const response = await sendPooled(api.server.url, sent);

            // Assess
            const violations = violationsOf(sent, response, oracle());
            if (![200, 404, 422].includes(response.status))
              violations.push(`answered ${response.status}: a cursor either continues a listing or is refused (422)`);
            if (origin === operation.operationId && query === '' && response.status !== 200)
              violations.push('a listing refused the cursor it handed out');
            if (violations.length > 0) findings.push(failure(violations, describedRequest(sent), response));
          }
      }
      expectNoFindings(findings);
    }, 120_000);

    it('answers a real, foreign or forged cursor with whatever other parameters with a page or a 422', async () => {
      await assertProperty(
        fc.asyncProperty(cursorPlanOf(listings), async (cursorPlan: CursorPlan) => {
          // Prepare
          const operation = listings.find(
            (candidate) => candidate.operationId === cursorPlan.operationId,
          ) as DocumentedOperation;
          const plan: RequestPlan = {
            operationId: operation.operationId,
            token: { kind: 'lister', form: 'bearer' },
            path: Object.fromEntries([...fixtureParametersOf(operation)].map((name) => [name, { kind: 'fixture' }])),
            query: [['cursor', cursorPlan.cursor], ...cursorPlan.others],
            headers: [],
            body: { kind: 'none' },
          };

          // Act
          const { response, violations, report } = await exchange(plan, operation);

          // Assess
          if (![200, 404, 422].includes(response.status))
            violations.push(`answered ${response.status}: a cursor either continues a listing or is refused (422)`);
          if (violations.length > 0) throw new Error(report());
        }),
        RUNS * 2,
      );
    }, 180_000);
  });

  describe('Tokens', () => {
    it('gives each kind of token no more than it may have, on every operation', async () => {
      const findings: string[] = [];
      for (const operation of operations) {
        // Prepare: a request the owner or the org admin gets a 2xx for, so a token's effect shows
        const candidates = fc.sample(validRequestPlanOf(document, operation, fixtureParametersOf(operation)), {
          seed: SEED,
          numRuns: 8,
        });
        let reference = candidates[0] as RequestPlan;
        search: for (const candidate of candidates)
          for (const kind of ['owner', 'orgAdmin']) {
            const probe = await exchange({ ...candidate, token: { kind, form: 'bearer' } }, operation);
            if (probe.violations.length > 0) findings.push(probe.report());
            if (isSuccess(probe.response.status)) {
              reference = { ...candidate, token: { kind, form: 'bearer' } };
              break search;
            }
          }
        references.set(operation.operationId, reference);

        for (const kind of Object.keys(TOKEN_KINDS)) {
          // Act
          const { violations, report } = await exchange({ ...reference, token: { kind, form: 'bearer' } }, operation);

          // Assess
          if (violations.length > 0) findings.push(report());
        }
      }
      expectNoFindings(findings);
    }, 300_000);
  });

  describe('Path parameters', () => {
    it('takes a percent-encoded dot segment in any path parameter for data that names nothing', async () => {
      const findings: string[] = [];
      for (const operation of operations)
        for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'path'))
          for (const dots of ['%2e%2e', '%2E%2E', '.%2e', '%2e']) {
            // Prepare: the request that succeeds, with one parameter replaced
            const reference = references.get(operation.operationId);
            if (!reference) continue;
            const plan: RequestPlan = {
              ...reference,
              path: { ...reference.path, [parameter.name]: { kind: 'text', text: dots, encoding: 'verbatim' } },
            };

            // Act
            const { violations, report } = await exchange(plan, operation);

            // Assess (a dot segment is never a valid id, key or name: no 2xx, whatever else the answer is)
            if (violations.length > 0) findings.push(report());
          }
      expectNoFindings(findings);
    }, 120_000);
  });

  describe('Request targets', () => {
    it('answers a malformed, bent or unroutable target with a 4xx in the error shape, never a 5xx or an echo', async () => {
      await assertProperty(
        fc.asyncProperty(targetPlanOf(operations), async (plan: TargetPlan) => {
          // Prepare
          const canary = mint.fresh();
          const mutate = TARGET_MUTATIONS[plan.mutation] ?? ((path: string) => path);
          let target = mutate(plan.path).replaceAll(CANARY, canary);
          const headers: [string, string][] = [['authorization', `Bearer ${world.ownerToken}`]];
          if (!target.includes(canary)) {
            if (plan.canaryIn === 'query') target += `${target.includes('?') ? '&' : '?'}q=${canary}`;
            else headers.push(['x-fuzz', canary]);
          }
          const sent = { method: plan.method, target, headers };

          // Act
          let response: PooledResponse;
          try {
            response = await sendPooled(api.server.url, sent);
          } catch (error) {
            // e.g. a 400 with a body in answer to HEAD, which no client can read
            throw new Error(
              `- no well-formed HTTP answer: ${(error as Error).message}\n--- request\n${describedRequest(sent)}`,
            );
          }

          // Assess
          const violations: string[] = [];
          if (response.status >= 500 || response.status < 200) violations.push(`answered ${response.status}`);
          if (response.status >= 400 && plan.method !== 'HEAD')
            violations.push(...errorBodyViolations(document, response.text));
          const echoed = [response.text, ...Object.values(response.headers).flat()].some((text) =>
            String(text).toLowerCase().includes(canary),
          );
          if (echoed) violations.push('the response echoes the target');
          if (violations.length > 0) throw new Error(failure(violations, describedRequest(sent), response));
        }),
        RUNS * 3,
      );
    }, 180_000);
  });

  describe.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    'Operation: %s',
    (_name, operation: DocumentedOperation) => {
      it('answers every request with a documented status, the error shape, and no echo of its input', async () => {
        const plans = requestPlanOf(document, operation, {
          fixtureParameters: fixtureParametersOf(operation),
          tokenKinds: Object.entries(TOKEN_KINDS)
            .filter(([, { weight }]) => weight > 0)
            .map(([kind, { weight }]) => ({ kind, weight })),
        });
        await assertProperty(
          fc.asyncProperty(plans, async (plan: RequestPlan) => {
            // Act
            const { violations, report } = await exchange(plan, operation);

            // Assess
            if (violations.length > 0) throw new Error(report());
          }),
          RUNS,
        );
      }, 180_000);
    },
  );
});
