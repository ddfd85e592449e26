import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InMemoryClientQuotaLedger } from '../../../lambdas/adapters/memory/in-memory-client-quota-ledger.ts';
import { openApiDocument } from '../../../lambdas/app/documents.ts';
import { API_OPERATIONS, parseConfig } from '../../../lambdas/app/service-tables.ts';
import { ClientThrottle, QUOTA_WINDOW_MS, windowStartOf } from '../../../lambdas/http/client-throttle.ts';
import { ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import type { ClientQuotaLedger, QuotaLeaseRequest } from '../../../lambdas/kernel/quota/client-quota-ledger.port.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';

const bound = (requestsPerSecond: number, leaseSize = 20) => ({ requestsPerSecond, leaseSize });

/** The in-memory ledger, keeping every lease asked for: what a round trip to the table would be in AWS. */
const recordingLedger = (inner: ClientQuotaLedger = new InMemoryClientQuotaLedger()) => {
  const leases: { request: QuotaLeaseRequest; granted: number }[] = [];
  const ledger: ClientQuotaLedger = {
    lease: async (request) => {
      const granted = await inner.lease(request);
      leases.push({ request, granted });
      return granted;
    },
  };
  return { ledger, leases, sizes: () => leases.map((lease) => lease.request.tokens) };
};

const takeMany = async (throttle: ClientThrottle, count: number, client = 'agent-app', limit = bound(100)) => {
  const outcomes: number[] = [];
  for (let request = 0; request < count; request += 1) outcomes.push(await throttle.take(client, limit));
  return outcomes;
};

const admittedOf = (outcomes: readonly number[]) => outcomes.filter((retryAfter) => retryAfter === 0).length;

/** An environment that met `requests` of one client in the window before this one, its leases so far forgotten. */
const metInLastWindow = async (requests: number) => {
  const clock = new ManualClock();
  const recording = recordingLedger();
  const throttle = new ClientThrottle({ clock, ledger: recording.ledger });
  await takeMany(throttle, requests, 'agent-app', bound(100, 20));
  clock.advance(QUOTA_WINDOW_MS);
  recording.leases.length = 0;
  return { clock, recording, throttle };
};

describe('Class: ClientThrottle', () => {
  describe('Method: take', () => {
    it('admits the bound in a window, refuses the rest until the window ends, then admits again', async () => {
      // Prepare
      const clock = new ManualClock('2026-06-01T00:00:00.250Z');
      const throttle = new ClientThrottle({ clock, ledger: new InMemoryClientQuotaLedger() });

      // Act
      const firstWindow = await takeMany(throttle, 12, 'agent-app', bound(10));
      clock.advance(750);
      const nextWindow = await takeMany(throttle, 12, 'agent-app', bound(10));

      // Assess: Retry-After is whole seconds, at least one
      expect(firstWindow).toEqual([...Array(10).fill(0), 1, 1]);
      expect(nextWindow).toEqual([...Array(10).fill(0), 1, 1]);
    });

    it('holds the bound across environments: two throttles on one ledger admit it once between them', async () => {
      // Prepare: two execution environments of one deployment
      const clock = new ManualClock('2026-06-01T00:00:00.000Z');
      const ledger = new InMemoryClientQuotaLedger();
      const [first, second] = [new ClientThrottle({ clock, ledger }), new ClientThrottle({ clock, ledger })] as const;

      // Act
      const outcomes = [];
      for (let request = 0; request < 40; request += 1)
        outcomes.push(await (request % 2 === 0 ? first : second).take('agent-app', bound(25, 5)));

      // Assess
      expect(admittedOf(outcomes)).toBeLessThanOrEqual(25);
      expect(admittedOf(outcomes)).toBeGreaterThanOrEqual(25 - 2 * (5 - 1));
    });

    it('keeps each client apart: a client over its bound takes nothing from another', async () => {
      // Prepare
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: new InMemoryClientQuotaLedger() });
      await takeMany(throttle, 3, 'runaway-app', bound(3));

      // Act
      const runaway = await throttle.take('runaway-app', bound(3));
      const planner = await throttle.take('planner-app', bound(3));

      // Assess
      expect(runaway).toBe(1);
      expect(planner).toBe(0);
    });

    it('starts a new environment with small leases, doubling each, up to the lease size', async () => {
      // Prepare
      const recording = recordingLedger();
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: recording.ledger });

      // Act
      await takeMany(throttle, 80, 'agent-app', bound(100, 20));

      // Assess: 1 + 2 + 4 + 8 + 16 + 20 + 20 + 20 = 91 leased for 80 requests
      expect(recording.sizes()).toEqual([1, 2, 4, 8, 16, 20, 20, 20]);
    });

    it('leases what the window before met, so a steady client costs one round trip per lease size', async () => {
      // Prepare
      const { clock, recording, throttle } = await metInLastWindow(12);

      // Act: 12 again, then 60 in the window after
      await takeMany(throttle, 12, 'agent-app', bound(100, 20));
      const afterTwelve = recording.sizes();
      clock.advance(QUOTA_WINDOW_MS);
      recording.leases.length = 0;
      await takeMany(throttle, 60, 'agent-app', bound(100, 20));

      // Assess
      expect(afterTwelve).toEqual([12]);
      expect(recording.sizes()).toEqual([12, 20, 20, 20]);
    });

    it('refuses the rest of a spent window without asking the ledger again', async () => {
      // Prepare
      const recording = recordingLedger();
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: recording.ledger });
      await takeMany(throttle, 10, 'runaway-app', bound(10, 5));

      // Act
      const refused = await takeMany(throttle, 500, 'runaway-app', bound(10, 5));

      // Assess: the last lease was granted only part (3 of 5), which said the window was spent; no refusal asked
      expect(refused.every((retryAfter) => retryAfter === 1)).toBe(true);
      expect(recording.leases.map((lease) => [lease.request.tokens, lease.granted])).toEqual([
        [1, 1],
        [2, 2],
        [4, 4],
        [5, 3],
      ]);
    });

    it('takes the partial last lease and refuses once it is spent, without a further round trip', async () => {
      // Prepare: another environment has leased 95 of this window's 100
      const clock = new ManualClock();
      const ledger = new InMemoryClientQuotaLedger();
      const window = windowStartOf(clock.now().getTime());
      await ledger.lease({
        client: 'agent-app',
        window: { start: window, end: window + 1000 },
        tokens: 95,
        limit: 100,
      });
      const recording = recordingLedger(ledger);
      const throttle = new ClientThrottle({ clock, ledger: recording.ledger });
      await takeMany(throttle, 10, 'agent-app', bound(100));
      clock.advance(QUOTA_WINDOW_MS);
      await ledger.lease({
        client: 'agent-app',
        window: { start: window + 1000, end: window + 2000 },
        tokens: 95,
        limit: 100,
      });
      recording.leases.length = 0;

      // Act: this environment met 10 last window, so it asks for 10 and gets the 5 that remain
      const outcomes = await takeMany(throttle, 8, 'agent-app', bound(100));

      // Assess
      expect(outcomes).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
      expect(recording.leases.map((lease) => [lease.request.tokens, lease.granted])).toEqual([[10, 5]]);
    });

    it('drops a window’s unspent tokens when it ends: they are never spent in the next one', async () => {
      // Prepare
      const clock = new ManualClock();
      const recording = recordingLedger();
      const throttle = new ClientThrottle({ clock, ledger: recording.ledger });
      await takeMany(throttle, 4, 'agent-app', bound(100, 20)); // leases 1, 2, 4: three tokens left unspent
      clock.advance(QUOTA_WINDOW_MS);

      // Act
      await throttle.take('agent-app', bound(100, 20));

      // Assess: the next window's first request asked the ledger for that window
      const last = recording.leases.at(-1)?.request;
      expect(last?.window.start).toBe(windowStartOf(clock.now().getTime()));
      expect(recording.leases).toHaveLength(4);
    });

    it('asks for one lease for requests that arrive together, rather than one each', async () => {
      // Prepare: the local server serves many requests at once in one process
      const { recording, throttle } = await metInLastWindow(30);

      // Act
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => throttle.take('agent-app', bound(100, 20))));

      // Assess
      expect(admittedOf(outcomes)).toBe(30);
      expect(recording.sizes()).toEqual([20, 20]);
    });

    it('admits requests that wait together through many leases of one window, a new environment’s slow start', async () => {
      // Prepare
      const recording = recordingLedger();
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: recording.ledger });

      // Act
      const outcomes = await Promise.all(Array.from({ length: 60 }, () => throttle.take('agent-app', bound(100, 20))));

      // Assess
      expect(admittedOf(outcomes)).toBe(60);
      expect(recording.sizes()).toEqual([1, 2, 4, 8, 16, 20, 20]);
    });

    it('follows a lowered bound at once: the window’s count so far stands against it', async () => {
      // Prepare
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: new InMemoryClientQuotaLedger() });
      await takeMany(throttle, 7, 'agent-app', bound(100, 1));

      // Act
      const underNewBound = await takeMany(throttle, 3, 'agent-app', bound(8, 1));

      // Assess
      expect(underNewBound).toEqual([0, 1, 1]);
    });

    it('asks the ledger again in a spent window once an operator has raised the bound', async () => {
      // Prepare
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger: new InMemoryClientQuotaLedger() });
      await takeMany(throttle, 6, 'agent-app', bound(5));

      // Act
      const underRaisedBound = await takeMany(throttle, 4, 'agent-app', bound(8));

      // Assess
      expect(underRaisedBound).toEqual([0, 0, 0, 1]);
    });

    it('fails the request when the ledger cannot be reached, admitting nothing, and asks again on the next', async () => {
      // Prepare
      let reachable = false;
      const inner = new InMemoryClientQuotaLedger();
      const ledger: ClientQuotaLedger = {
        lease: async (request) => {
          if (!reachable) throw new Error('storage unavailable');
          return inner.lease(request);
        },
      };
      const throttle = new ClientThrottle({ clock: new ManualClock(), ledger });

      // Act
      const unreachable = throttle.take('agent-app', bound(100));
      await expect(unreachable).rejects.toThrow('storage unavailable');
      reachable = true;
      const afterwards = await throttle.take('agent-app', bound(100));

      // Assess
      expect(afterwards).toBe(0);
    });

    it('gives up as unavailable, rather than waiting on, when every lease comes back after its window ended', async () => {
      // Prepare: a ledger slower than a window
      const clock = new ManualClock();
      const inner = new InMemoryClientQuotaLedger();
      let leases = 0;
      const ledger: ClientQuotaLedger = {
        lease: async (request) => {
          leases += 1;
          clock.advance(QUOTA_WINDOW_MS);
          return inner.lease(request);
        },
      };
      const throttle = new ClientThrottle({ clock, ledger });

      // Act
      const outcome = throttle.take('agent-app', bound(100));

      // Assess
      await expect(outcome).rejects.toThrow(ServiceUnavailableError);
      expect(leases).toBe(3);
    });

    it('holds at most its limit of clients, forgetting those of past windows before current ones', async () => {
      // Prepare: idle-app was last seen windows ago; busy-app holds unspent tokens of the current window
      const clock = new ManualClock();
      const recording = recordingLedger();
      const throttle = new ClientThrottle({ clock, ledger: recording.ledger, maxClients: 3 });
      await throttle.take('idle-app', bound(10));
      clock.advance(3 * QUOTA_WINDOW_MS);
      await takeMany(throttle, 2, 'busy-app', bound(10)); // leases 1, then 2: one token left
      await throttle.take('current-app', bound(10));
      const leasesBefore = recording.leases.length;

      // Act: a fourth client arrives, then busy-app makes its next request
      await throttle.take('new-app', bound(10));
      await throttle.take('busy-app', bound(10));

      // Assess: busy-app spent its kept token (only new-app leased); idle-app made way
      expect(throttle.size).toBe(3);
      expect(recording.leases.slice(leasesBefore).map((lease) => lease.request.client)).toEqual(['new-app']);
    });
  });
});

describe('Document: OpenAPI', () => {
  it('lists 429 with Retry-After for every authenticated operation', () => {
    // Prepare
    const document = openApiDocument() as {
      paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, { headers?: object }> }>>;
    };
    const authenticated = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.security.length > 0)
        .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
    );

    // Assess
    expect(authenticated.length).toBeGreaterThanOrEqual(API_OPERATIONS.filter((op) => op.authenticated).length);
    for (const { route, operation } of authenticated)
      expect(operation.responses['429']?.headers, route).toHaveProperty('Retry-After');
  });
});

describe('Document: README, "Per-client throttling"', () => {
  it('shows a valid configuration, naming one client', () => {
    // Prepare
    const readme = readFileSync('README.md', 'utf8');
    const example = /### Per-client throttling[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];

    // Act
    const config = parseConfig(JSON.parse(example ?? 'null'), 'README.md');

    // Assess
    expect(Object.keys(config.throttle.clients)).toHaveLength(1);
  });
});
