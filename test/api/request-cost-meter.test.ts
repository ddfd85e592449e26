import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BRANCH_KEY_CACHE_SECONDS } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import { DEFAULT_BRANCH_KEY_CACHE_SECONDS } from '../../lambdas/local/request-cost-meter.ts';
import { LocalApi } from '../support/local-api.ts';

type Note = { id: string; etag: string };

/*
 * The local server's cost meter, through real HTTP: what each operation costs in AWS beyond what the embedded
 * engine reports — the outbox index writes, the relay's and consumers' work for each event (booked to the
 * operation that committed it), and key use as the operation's own function would see it.
 */
describe('Class: RequestCostMeter', () => {
  let api: LocalApi;
  let token: string;

  beforeEach(async () => {
    api = await LocalApi.start({ meterEngineWork: true });
    token = await api.token({ tenant: 'acme', sub: 'alice' });
  });

  afterEach(async () => {
    await api.stop();
  });

  const settled = async () => {
    await api.server.relay.idle();
    return api.server.costs.report();
  };

  describe('Method: measure', () => {
    it('books a create its outbox marker, and the relay and consumers of its event to it', async () => {
      // Act
      const created = await api.request<Note>('POST', '/v1/notes', { token, body: { text: 'priced' } });
      const report = await settled();

      // Assess: the marker, the revision and the head put; the event relayed once, its marker deleted
      expect(created.status).toBe(201);
      const cost = report.createNote;
      expect(cost?.requests).toBe(1);
      expect(cost?.engine.writeUnits).toBeGreaterThanOrEqual(3);
      expect(cost?.engine.indexWriteUnits).toBe(0);
      expect(cost?.caused.eventsByKind).toEqual({ note: 1 });
      expect(cost?.caused.engine.indexWriteUnits).toBe(0);
      // The marker's delete and the audit entry's put
      expect(cost?.caused.engine.writeUnits).toBeGreaterThanOrEqual(2);
      expect(cost?.caused.eventBytes).toBeGreaterThan(100);
      expect(cost?.storageRoundTrips).toHaveLength(1);
      expect(cost?.storageRoundTrips[0]).toBeGreaterThanOrEqual(2);
      expect(report.eventRelay?.caused.eventsByKind ?? {}).toEqual({});
    });

    it('keeps timings and round trips but reads no engine traffic when the server was not asked to (latency runs)', async () => {
      // Arrange: a server as `npm start` and the bench's latency runs start it
      const plain = await LocalApi.start();
      try {
        const plainToken = await plain.token({ tenant: 'acme', sub: 'alice' });

        // Act
        const created = await plain.request<Note>('POST', '/v1/notes', { token: plainToken, body: { text: 'timed' } });
        await plain.server.relay.idle();
        const cost = plain.server.costs.report().createNote;

        // Assess: the request timed and its round trips counted; no engine work, no event attributed to it
        expect(created.status).toBe(201);
        expect(cost?.handlerMilliseconds).toHaveLength(1);
        expect(cost?.storageRoundTrips[0]).toBeGreaterThanOrEqual(2);
        expect(cost?.storageRequests).toBeGreaterThanOrEqual(3);
        expect(cost?.engine.requests).toBe(0);
        expect(cost?.engine.writeUnits).toBe(0);
        expect(cost?.caused.eventsByKind).toEqual({});
      } finally {
        await plain.stop();
      }
    });

    it('counts one key use per record written, not the copy of its ciphertext the head item carries', async () => {
      // Act
      await api.request<Note>('POST', '/v1/notes', { token, body: { text: 'one encryption' } });
      const { keys } = (await settled()).createNote?.engine ?? { keys: undefined };

      // Assess: whichever keyring wrote it, one data key or one branch key use
      expect((keys?.recordKeysGenerated ?? 0) + (keys?.branchKeyUses ?? 0)).toBe(1);
    });

    it("gives each operation caches of its own: a note another function wrote is a miss for the reader's", async () => {
      // Prepare
      const created = await api.request<Note>('POST', '/v1/notes', { token, body: { text: 'read twice' } });

      // Act
      await api.request('GET', `/v1/notes/${created.body.id}`, { token });
      await api.request('GET', `/v1/notes/${created.body.id}`, { token });
      const read = (await settled()).getNote?.engine.keys;

      // Assess: the first read decrypts (locally the shared cache would have answered both), the second hits
      expect((read?.recordKeysDecrypted ?? 0) + (read?.branchKeyUses ?? 0)).toBe(1);
    });
  });

  it('assumes the branch key cache period the hierarchical keyring has by default', () => {
    // Assess
    expect(DEFAULT_BRANCH_KEY_CACHE_SECONDS).toBe(BRANCH_KEY_CACHE_SECONDS.default);
  });
});
