import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CLIENT_QUOTA_ITEMS,
  clientQuotaKey,
  DynamoDbClientQuotaLedger,
} from '../../lambdas/adapters/dynamodb/dynamodb-client-quota-ledger.ts';
import { ClientThrottle, QUOTA_WINDOW_MS } from '../../lambdas/http/client-throttle.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { describeClientQuotaLedgerContract } from '../contract/client-quota-ledger.contract.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';

describeClientQuotaLedgerContract('DynamoDB adapter on the embedded engine', async () => {
  const table = await startEmbeddedTable();
  return { ledger: new DynamoDbClientQuotaLedger({ table: table.table }), close: () => table.close() };
});

describe('Class: DynamoDbClientQuotaLedger', () => {
  let embedded: EmbeddedTable;
  const window = { start: Date.parse('2026-06-01T00:00:00.000Z'), end: Date.parse('2026-06-01T00:00:01.000Z') };

  beforeEach(async () => {
    embedded = await startEmbeddedTable();
  });

  afterEach(async () => {
    await embedded.close();
  });

  describe('Method: lease', () => {
    it('keeps one item per client and window under the quota prefix, with the count and a TTL just past the window', async () => {
      // Prepare
      const ledger = new DynamoDbClientQuotaLedger({ table: embedded.table });

      // Act
      await ledger.lease({ client: 'agent-app', window, tokens: 20, limit: 100 });
      await ledger.lease({ client: 'agent-app', window, tokens: 20, limit: 100 });

      // Assess: DynamoDB removes it a minute after the window (TTL deletion is free); nothing else is stored
      const item = await embedded.table.get(clientQuotaKey('agent-app', window.start));
      expect(item).toEqual({
        pk: `${CLIENT_QUOTA_ITEMS.partitionKeyPrefix}agent-app`,
        sk: `${CLIENT_QUOTA_ITEMS.sortKeyPrefix}${window.start}`,
        leased: 40,
        ttl: window.end / 1000 + 60,
      });
      expect(Object.keys(item ?? {}).sort()).toEqual([...CLIENT_QUOTA_ITEMS.attributes].sort());
    });

    it('costs one write unit per lease granted, and a refused write and a read when the window runs out', async () => {
      // Prepare
      const ledger = new DynamoDbClientQuotaLedger({ table: embedded.table });
      const requests: { operation: string; capacityUnits: number }[] = [];
      embedded.metrics.storageRequest = (request) => void requests.push(request);

      // Act: five leases of 20 fill the window; the sixth finds it spent
      for (let lease = 0; lease < 6; lease += 1)
        await ledger.lease({ client: 'agent-app', window, tokens: 20, limit: 100 });

      // Assess
      expect(requests).toEqual([
        ...Array.from({ length: 6 }, () => ({ operation: 'UpdateItem', capacityUnits: 1 })),
        { operation: 'GetItem', capacityUnits: 1 },
      ]);
    });
  });
});

describe('Class: ClientThrottle (environments sharing one DynamoDB ledger)', () => {
  let embedded: EmbeddedTable;

  beforeEach(async () => {
    embedded = await startEmbeddedTable();
  });

  afterEach(async () => {
    await embedded.close();
  });

  it('never admits more than the bound in a window across environments, and admits all of it under demand', async () => {
    // Prepare: three execution environments of one deployment, each with its own throttle, one table
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const ledger = new DynamoDbClientQuotaLedger({ table: embedded.table });
    const environments = Array.from({ length: 3 }, () => new ClientThrottle({ clock, ledger }));
    const bound = { requestsPerSecond: 50, leaseSize: 8 };
    const admittedPerWindow: number[] = [];

    // Act: four windows, 40 requests of one client arriving at once in each environment
    for (let window = 0; window < 4; window += 1) {
      const outcomes = await Promise.all(
        environments.flatMap((environment) => Array.from({ length: 40 }, () => environment.take('agent-app', bound))),
      );
      admittedPerWindow.push(outcomes.filter((retryAfter) => retryAfter === 0).length);
      clock.advance(QUOTA_WINDOW_MS);
    }

    // Assess: 120 asked for in each window; the bound held exactly, with no lease left unspent
    expect(admittedPerWindow).toEqual([50, 50, 50, 50]);
  });

  it('admits no more than the bound in a window when the environments’ requests arrive one by one, interleaved', async () => {
    // Prepare
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const ledger = new DynamoDbClientQuotaLedger({ table: embedded.table });
    const first = new ClientThrottle({ clock, ledger });
    const second = new ClientThrottle({ clock, ledger });
    // Leases small enough that what two environments can leave unspent is less than the bound: the lower bound bites.
    const bound = { requestsPerSecond: 30, leaseSize: 8 };

    // Act
    let admitted = 0;
    for (let request = 0; request < 50; request += 1) {
      const environment = request % 2 === 0 ? first : second;
      if ((await environment.take('agent-app', bound)) === 0) admitted += 1;
    }

    // Assess
    expect(admitted).toBeLessThanOrEqual(bound.requestsPerSecond);
    expect(admitted).toBeGreaterThanOrEqual(bound.requestsPerSecond - 2 * (bound.leaseSize - 1));
  });
});
