import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { FileConfigProvider } from '../../lambdas/adapters/config/file-config-provider.ts';
import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { CAPABILITIES } from '../../lambdas/app/capabilities.ts';
import { DEFAULT_CONFIG, parseConfig, SERVICE_CONFIGURATION } from '../../lambdas/app/service-tables.ts';
import { localApplication } from '../../lambdas/composition/local-application.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import { apiEvent } from '../support/api-events.ts';
import { LocalApi } from '../support/local-api.ts';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/*
 * The per-app-client bound over real HTTP: tokens minted for two app clients (`client_id`), one of them given a
 * small bound in the configuration. The clock stands still, so every request falls in one quota window.
 */
describe('API: per-app-client throttle', () => {
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const started = async (options: Parameters<typeof LocalApi.start>[0]) => {
    const clock = new ManualClock(new Date());
    const api = await LocalApi.start({ clock, ...options });
    cleanups.push(() => api.stop());
    return Object.assign(api, { clock });
  };

  it('answers 429 with Retry-After to a client over its bound, in the error shape, while another client is unaffected', async () => {
    // Prepare
    const config = new StaticConfigProvider(
      parseConfig({ throttle: { clients: { 'runaway-app': { requestsPerSecond: 3 } } } }, 'test'),
    );
    const api = await started({ config });
    const runaway = await api.token({ client: 'runaway-app' });
    const planner = await api.token({ client: 'planner-app', sub: 'bob' });

    // Act
    const withinBound = [];
    for (let request = 0; request < 3; request += 1)
      withinBound.push(await api.request('GET', '/v1/notes', { token: runaway }));
    const overBound = await api.request('GET', '/v1/notes', { token: runaway });
    const other = await Promise.all(
      Array.from({ length: 5 }, () => api.request('POST', '/v1/notes', { token: planner, body: { text: 'plan' } })),
    );

    // Assess
    expect(withinBound.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(overBound.status).toBe(429);
    expect(overBound.headers.get('retry-after')).toBe('1');
    expect(overBound.body).toEqual({
      error: {
        code: 'request.throttled',
        message: expect.any(String),
        requestId: expect.any(String),
      },
    });
    expect(JSON.stringify(overBound.body)).not.toContain('runaway-app');
    expect(other.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
  });

  it('holds every client to 100 requests a second out of the box', async () => {
    // Prepare
    const api = await started({ config: new StaticConfigProvider(DEFAULT_CONFIG) });
    const token = await api.token();

    // Act
    const statuses = [];
    for (let request = 0; request < 105; request += 1)
      statuses.push((await api.request('GET', '/v1/notes', { token })).status);
    api.clock.advance(1000);
    const nextSecond = await api.request('GET', '/v1/notes', { token });

    // Assess
    expect(DEFAULT_CONFIG.throttle.requestsPerSecond).toBe(100);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.slice(100)).toEqual([429, 429, 429, 429, 429]);
    expect(nextSecond.status).toBe(200);
  });

  it('refuses a client over its bound before its request is validated or stored, and counts it', async () => {
    // Prepare
    const config = new StaticConfigProvider(
      parseConfig({ throttle: { clients: { 'runaway-app': { requestsPerSecond: 1 } } } }, 'test'),
    );
    const api = await started({ config });
    const runaway = await api.token({ client: 'runaway-app' });
    await api.request('GET', '/v1/notes', { token: runaway });

    // Act
    const invalid = await api.request('POST', '/v1/notes', { token: runaway, body: { text: 42 } });
    const listed = await api.request<{ items: unknown[] }>('GET', '/v1/notes', { token: await api.token() });

    // Assess
    expect(invalid.status).toBe(429);
    expect(api.server.costs.totals.countOf('http.client_throttled')).toBe(1);
    expect(listed.body.items).toEqual([]);
  });

  it('takes a bound an operator changed in the configuration on the next request', async () => {
    // Prepare
    const folder = await mkdtemp(join(tmpdir(), 'memory-hub-throttle-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'config.json');
    let mtime = Date.now() / 1000;
    const edit = async (document: unknown) => {
      await writeFile(path, JSON.stringify(document));
      mtime += 1;
      await utimes(path, mtime, mtime);
    };
    await edit({ throttle: { clients: { 'runaway-app': { requestsPerSecond: 1 } } } });
    const config = await FileConfigProvider.load({ path, checkIntervalMs: 0, configuration: SERVICE_CONFIGURATION });
    const api = await started({ config });
    const runaway = await api.token({ client: 'runaway-app' });
    await api.request('GET', '/v1/notes', { token: runaway });
    const beforeEdit = await api.request('GET', '/v1/notes', { token: runaway });

    // Act: the operator raises the client's bound to three a second, within the same second
    await edit({ throttle: { clients: { 'runaway-app': { requestsPerSecond: 3 } } } });
    const afterEdit = await api.request('GET', '/v1/notes', { token: runaway });

    // Assess
    expect(beforeEdit.status).toBe(429);
    expect(afterEdit.status).toBe(200);
  });
});

describe('API: per-app-client throttle across execution environments', () => {
  it('holds a client to its bound across two environments of one deployment on one table', async () => {
    // Prepare: two compositions of the whole service on one engine and table, as two Lambda environments are
    const engine = await startEmbeddedDynamoDb();
    const keys = await mkdtemp(join(tmpdir(), 'memory-hub-throttle-keys-'));
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const environment = () =>
      localApplication({
        dynamoDb: engine,
        tableName: 'memory-hub-throttle',
        keyFile: join(keys, 'content-key.bin'),
        config: new StaticConfigProvider(DEFAULT_CONFIG),
        modules: CAPABILITIES,
        clock,
        log: { warn: () => undefined, error: () => undefined },
      });
    const first = await environment();
    const second = await environment();
    const listNotesIn = (service: typeof first) => {
      const handler = service.handlers.listNotes;
      if (!handler) throw new Error('the notes module exports listNotes');
      return handler;
    };
    try {
      // Act: 150 listings by one client within one second, alternating between the environments
      const statuses = [];
      for (let request = 0; request < 150; request += 1) {
        const listNotes = listNotesIn(request % 2 === 0 ? first : second);
        statuses.push((await listNotes(apiEvent('GET /v1/notes'), context)).statusCode);
      }

      // Assess: the default bound, 100, once between them; no more than one lease's worth left unspent in each
      const admitted = statuses.filter((status) => status === 200).length;
      expect(admitted).toBeLessThanOrEqual(100);
      expect(admitted).toBeGreaterThanOrEqual(100 - 2 * (DEFAULT_CONFIG.throttle.leaseSize - 1));
      expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
    } finally {
      await first.local.close();
      await second.local.close();
      await engine.close();
      await rm(keys, { recursive: true, force: true });
    }
  });
});
