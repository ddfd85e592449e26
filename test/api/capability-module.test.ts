import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { deploymentDocument, openApiDocument } from '../../lambdas/app/documents.ts';
import { serviceTables } from '../../lambdas/app/service-tables.ts';
import { InvalidConfigError } from '../../lambdas/kernel/config/config.errors.ts';
import { bookmarksModule } from '../fixtures/capabilities/bookmarks/bookmarks.module.ts';
import { CAPABILITIES_WITH_BOOKMARKS } from '../fixtures/capabilities/with-bookmarks.ts';
import { LocalApi } from '../support/local-api.ts';

/** Every source file under a folder, recursively. */
const sourcesUnder = (folder: string): string[] =>
  readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(path).isDirectory() ? sourcesUnder(path) : [path];
  });

/**
 * Adding a capability is one new folder and one line that lists its module: the test-only bookmarks module
 * (test/fixtures/capabilities/bookmarks) registers a record kind, two operations, a consumer and a
 * configuration section, and joins the service in `with-bookmarks.ts`; nothing under lambdas/ changes.
 */
describe('Capability modules: a new capability is a folder and a line', () => {
  const service = serviceTables(CAPABILITIES_WITH_BOOKMARKS);
  let api: LocalApi;

  beforeAll(async () => {
    api = await LocalApi.start({
      modules: CAPABILITIES_WITH_BOOKMARKS,
      config: new StaticConfigProvider(service.configuration.defaults),
    });
  });
  afterAll(() => api.stop());

  it('serves its operations over real HTTP, inside the caller’s scope like every other record', async () => {
    // Prepare
    const [alice, bob] = [await api.token({ sub: 'alice' }), await api.token({ sub: 'bob' })];

    // Act
    const created = await api.request<{ id: string; title: string }>('POST', '/v1/bookmarks', {
      token: alice,
      body: { title: 'Reference 000', url: 'https://example.org/000' },
    });
    const read = await api.request('GET', `/v1/bookmarks/${created.body.id}`, { token: alice });
    const foreign = await api.request('GET', `/v1/bookmarks/${created.body.id}`, { token: bob });
    const invalid = await api.request('POST', '/v1/bookmarks', { token: alice, body: { title: 'x', url: 'nope' } });

    // Assess
    expect(created.status).toBe(201);
    expect(read.body).toEqual({ ...created.body, revision: 1 });
    expect(foreign.status).toBe(404);
    expect(invalid.status).toBe(422);
  });

  it('delivers the events of its kind to its consumer through the event backbone', async () => {
    const token = await api.token({ sub: 'carol' });
    const created = await api.request<{ id: string }>('POST', '/v1/bookmarks', {
      token,
      body: { title: 'Reference 001', url: 'https://example.org/001' },
    });

    await api.server.relay.idle();

    expect(api.server.backend.services(bookmarksModule).counter.created).toContain(created.body.id);
  });

  it('appears in every table built from the module list: OpenAPI, record kinds, consumers, configuration', () => {
    const document = openApiDocument(service) as { paths: Record<string, unknown> };
    const deployment = deploymentDocument(service);

    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/bookmarks', '/v1/bookmarks/{id}']));
    expect(deployment.recordKinds).toContainEqual({
      name: 'bookmark',
      journal: false,
      organisationOwned: false,
      audited: true,
      searchable: false,
    });
    expect(deployment.consumers.map((consumer) => consumer.name)).toContain('bookmark-counter');
    expect(service.configuration.defaults.bookmarks).toEqual({ horizonDays: 90 });
    expect(() => service.configuration.parse({ bookmarks: { horizonDay: 7 } }, 'test')).toThrow(InvalidConfigError);
  });

  it('needed no change to the kernel, the HTTP layer, the compositions or the deployed capability list', () => {
    const mentions = sourcesUnder('lambdas').filter((path) => /bookmark/i.test(readFileSync(path, 'utf8')));

    expect(mentions).toEqual([]);
  });
});
