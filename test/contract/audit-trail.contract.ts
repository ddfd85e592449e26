import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../lambdas/kernel/audit/audit-entry.schema.ts';
import type { AuditTrail } from '../../lambdas/kernel/audit/audit-trail.port.ts';
import { InvalidCursorError } from '../../lambdas/kernel/records/record.errors.ts';

/** What every audit trail does; run against the in-memory fake and the DynamoDB adapter. */
export const describeAuditTrailContract = (
  name: string,
  create: () => Promise<{ trail: AuditTrail; close(): Promise<void> }>,
) => {
  describe(`Contract: AuditTrail (${name})`, () => {
    let fixture: { trail: AuditTrail; close(): Promise<void> };
    const entry = (id: string, occurredAt: string): AuditEntry => ({
      id,
      occurredAt,
      actor: { principal: 'alice', client: 'app' },
      action: 'record.created',
      recordKind: 'note',
      recordId: `record-${id}`,
      revision: 1,
      decision: 'committed',
      reasonCode: 'revision.created',
    });

    beforeEach(async () => {
      fixture = await create();
    });

    afterEach(async () => {
      await fixture.close();
    });

    it('appends an entry once, keeps tenants apart, and lists oldest first with a cursor', async () => {
      const entries = [
        entry('e3', '2026-06-03T00:00:00.000Z'),
        entry('e1', '2026-06-01T00:00:00.000Z'),
        entry('e2', '2026-06-02T00:00:00.000Z'),
      ];
      for (const value of entries) expect(await fixture.trail.append('acme', value)).toBe('appended');
      expect(await fixture.trail.append('acme', entries[0] as AuditEntry)).toBe('duplicate');
      await fixture.trail.append('globex', entry('g1', '2026-06-01T00:00:00.000Z'));

      const first = await fixture.trail.list('acme', { limit: 2 });
      const rest = await fixture.trail.list('acme', { limit: 2, cursor: first.nextCursor });

      expect([...first.items, ...rest.items].map((value) => value.id)).toEqual(['e1', 'e2', 'e3']);
      expect((await fixture.trail.list('globex', { limit: 10 })).items.map((value) => value.id)).toEqual(['g1']);
    });

    it('lists from an instant on', async () => {
      await fixture.trail.append('acme', entry('old', '2026-06-01T00:00:00.000Z'));
      await fixture.trail.append('acme', entry('new', '2026-06-05T00:00:00.000Z'));

      const since = await fixture.trail.list('acme', { limit: 10, since: '2026-06-02T00:00:00.000Z' });

      expect(since.items.map((value) => value.id)).toEqual(['new']);
    });

    it('refuses a cursor positioned before `since`, outside the range the listing reads', async () => {
      // Prepare: a real cursor after the first of three entries, then a `since` past the position it holds.
      for (const [id, day] of [
        ['d1', '01'],
        ['d2', '02'],
        ['d3', '03'],
      ] as const)
        await fixture.trail.append('acme', entry(id, `2026-06-${day}T00:00:00.000Z`));
      const first = await fixture.trail.list('acme', { limit: 1 });

      // Act
      const listing = fixture.trail.list('acme', {
        limit: 1,
        cursor: first.nextCursor,
        since: '2026-06-02T00:00:00.000Z',
      });

      // Assess
      await expect(listing).rejects.toBeInstanceOf(InvalidCursorError);
    });
  });
};
