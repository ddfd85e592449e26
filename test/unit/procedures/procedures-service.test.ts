import { describe, expect, it } from 'vitest';
import { proceduresModule } from '../../../lambdas/capabilities/procedures/procedures.module.ts';
import { composeService } from '../../../lambdas/composition/compose-service.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { inMemoryPorts } from '../../support/in-memory-backend.ts';
import { scopeOf } from '../../support/scopes.ts';

const procedure = (title: string) => ({
  metadata: {
    title,
    description: title,
    taskFamily: 'operations',
    applicability: [],
    tags: [],
    contextConditions: [],
    exclusions: [],
  },
  steps: [{ id: 's1', instruction: title }],
  prerequisites: [],
  warnings: [],
  version: '1.0',
});

describe('Class: ProceduresService (two function instances on one store)', () => {
  const manager = scopeOf({ tenant: 'acme', sub: 'mona', groups: ['project:p1:manager'] });

  it("never shows what another instance retired, even from a warm pool, and sees another's new procedure within the pool's age", async () => {
    // Prepare: two compositions of the module on the same ports, as two Lambda instances on one table.
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const { ports } = inMemoryPorts(clock);
    const first = composeService(ports, [proceduresModule]).services(proceduresModule).procedures;
    const second = composeService(ports, [proceduresModule]).services(proceduresModule).procedures;
    const { record } = await first.create(manager, 'p1', procedure('Rotate the signing key'));
    const query = { query: 'rotate the signing key', facts: [] };
    expect((await first.retrieve(manager, 'p1', query)).hits.map((hit) => hit.id)).toEqual([record.id]);

    // Act: the other instance retires it, and creates another.
    await second.retire(manager, 'p1', record.id, [record.revision]);
    await second.create(manager, 'p1', procedure('Rotate the signing key quarterly'));
    const afterRetire = await first.retrieve(manager, 'p1', query);

    // Assess: both changes reach the first instance at once, through the project's change log.
    expect(afterRetire.hits.map((hit) => hit.id)).not.toContain(record.id);
    expect(afterRetire.hits).toHaveLength(1);
  });

  it('reaches a procedure another instance created on its next retrieval', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const { ports } = inMemoryPorts(clock);
    const first = composeService(ports, [proceduresModule]).services(proceduresModule).procedures;
    const second = composeService(ports, [proceduresModule]).services(proceduresModule).procedures;
    await first.create(manager, 'p1', procedure('Restart the billing service'));
    const query = { query: 'restart the billing service', facts: [] };
    expect((await first.retrieve(manager, 'p1', query)).candidates).toBe(1);
    await second.create(manager, 'p1', procedure('Restart the search service'));
    expect((await first.retrieve(manager, 'p1', query)).candidates).toBe(2);
  });
});
