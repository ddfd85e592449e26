import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientQuotaLedger, QuotaLeaseRequest } from '../../lambdas/kernel/quota/client-quota-ledger.port.ts';

export interface ClientQuotaLedgerFixture {
  readonly ledger: ClientQuotaLedger;
  close(): Promise<void>;
}

/** Builds a fresh ledger with no window counted yet. */
export type CreateClientQuotaLedger = () => Promise<ClientQuotaLedgerFixture>;

const WINDOW = { start: Date.parse('2026-06-01T00:00:00.000Z'), end: Date.parse('2026-06-01T00:00:01.000Z') };
const NEXT_WINDOW = { start: WINDOW.end, end: WINDOW.end + 1000 };

const leaseOf = (overrides: Partial<QuotaLeaseRequest> = {}): QuotaLeaseRequest => ({
  client: 'agent-app',
  window: WINDOW,
  tokens: 20,
  limit: 100,
  ...overrides,
});

/**
 * What every ClientQuotaLedger must do: grant a lease whole while its window has room, the rest of the window as
 * the last lease, then nothing; count each client's windows apart; and never let racing leases together pass a
 * window's limit. Runs against the in-memory fake and the DynamoDB adapter on the embedded engine.
 */
export const describeClientQuotaLedgerContract = (name: string, create: CreateClientQuotaLedger) => {
  describe(`Contract: ClientQuotaLedger (${name})`, () => {
    let fixture: ClientQuotaLedgerFixture;

    beforeEach(async () => {
      fixture = await create();
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: lease', () => {
      it('grants each lease whole while the window has room for it', async () => {
        // Act
        const granted = [];
        for (let lease = 0; lease < 5; lease += 1) granted.push(await fixture.ledger.lease(leaseOf()));

        // Assess
        expect(granted).toEqual([20, 20, 20, 20, 20]);
      });

      it('grants what remains of the window as the last lease, then nothing', async () => {
        // Prepare
        await fixture.ledger.lease(leaseOf({ tokens: 7, limit: 10 }));

        // Act
        const last = await fixture.ledger.lease(leaseOf({ tokens: 7, limit: 10 }));
        const after = await fixture.ledger.lease(leaseOf({ tokens: 1, limit: 10 }));

        // Assess
        expect(last).toBe(3);
        expect(after).toBe(0);
      });

      it('counts each window apart: a new window starts from nothing', async () => {
        // Prepare
        await fixture.ledger.lease(leaseOf({ tokens: 10, limit: 10 }));

        // Act
        const sameWindow = await fixture.ledger.lease(leaseOf({ tokens: 5, limit: 10 }));
        const nextWindow = await fixture.ledger.lease(leaseOf({ tokens: 5, limit: 10, window: NEXT_WINDOW }));

        // Assess
        expect(sameWindow).toBe(0);
        expect(nextWindow).toBe(5);
      });

      it('counts each client apart: one client’s spent window takes nothing from another’s', async () => {
        // Prepare
        await fixture.ledger.lease(leaseOf({ client: 'runaway-app', tokens: 10, limit: 10 }));

        // Act
        const runaway = await fixture.ledger.lease(leaseOf({ client: 'runaway-app', tokens: 1, limit: 10 }));
        const planner = await fixture.ledger.lease(leaseOf({ client: 'planner-app', tokens: 10, limit: 10 }));

        // Assess
        expect(runaway).toBe(0);
        expect(planner).toBe(10);
      });

      it('keeps clients apart whose ids one another begin with', async () => {
        // Prepare
        await fixture.ledger.lease(leaseOf({ client: 'app', tokens: 4, limit: 4 }));

        // Act
        const longer = await fixture.ledger.lease(leaseOf({ client: 'app-2', tokens: 4, limit: 4 }));

        // Assess
        expect(longer).toBe(4);
      });

      it('counts what was leased against a limit lowered within the window', async () => {
        // Prepare
        await fixture.ledger.lease(leaseOf({ tokens: 8, limit: 100 }));

        // Act
        const underLoweredLimit = await fixture.ledger.lease(leaseOf({ tokens: 5, limit: 10 }));
        const afterwards = await fixture.ledger.lease(leaseOf({ tokens: 5, limit: 10 }));

        // Assess
        expect(underLoweredLimit).toBe(2);
        expect(afterwards).toBe(0);
      });

      it('never grants racing leases more than the limit together, and grants all of it', async () => {
        // Act: 30 leases of 3 at once against a limit of 40
        const granted = await Promise.all(
          Array.from({ length: 30 }, () => fixture.ledger.lease(leaseOf({ tokens: 3, limit: 40 }))),
        );

        // Assess
        expect(granted.reduce((sum, tokens) => sum + tokens, 0)).toBe(40);
        expect(await fixture.ledger.lease(leaseOf({ tokens: 1, limit: 40 }))).toBe(0);
      });

      it('refuses a lease of no tokens, a limit of none and a window that ends before it starts', async () => {
        // Act & Assess
        await expect(fixture.ledger.lease(leaseOf({ tokens: 0 }))).rejects.toThrow(RangeError);
        await expect(fixture.ledger.lease(leaseOf({ limit: 0 }))).rejects.toThrow(RangeError);
        await expect(
          fixture.ledger.lease(leaseOf({ window: { start: WINDOW.end, end: WINDOW.start } })),
        ).rejects.toThrow(RangeError);
      });
    });
  });
};
