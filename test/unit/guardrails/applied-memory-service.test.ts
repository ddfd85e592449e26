import { describe, expect, it } from 'vitest';
import type { CandidateRule } from '../../../lambdas/capabilities/learning/belief.schema.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import type { HeadProjection } from '../../../lambdas/kernel/records/head-projection.port.ts';
import { assembleBackend, inMemoryPorts } from '../../support/in-memory-backend.ts';
import { scopeOf } from '../../support/scopes.ts';

const declared = (
  key: string,
  value: CandidateRule['value'],
  overrides: Partial<CandidateRule> = {},
): CandidateRule => ({
  key,
  value,
  kind: 'preference',
  basis: 'declarative',
  cardinality: 'single',
  polarity: 'confirm',
  ...overrides,
});

/** The in-memory backend, with listings of the named kinds (and owners) failing as an unavailable store would. */
const backendWithOutage = (failing: (kind: string, ownerType: string, agent?: string) => boolean) => {
  const fakes = inMemoryPorts();
  const real = fakes.records;
  let outage = false;
  const listHeads: HeadProjection['listHeads'] = (namespace, page) => {
    const owner = namespace.owner;
    const agent = owner.type === 'principal' ? owner.agent : undefined;
    if (outage && failing(namespace.kind.name, owner.type, agent))
      return Promise.reject(new ServiceUnavailableError('storage unavailable'));
    return real.listHeads(namespace, page);
  };
  // The real store's methods need the real store as `this` (private fields); only listHeads is replaced.
  const records = new Proxy(real, {
    get: (target, property) => {
      if (property === 'listHeads') return listHeads;
      const member = Reflect.get(target, property, target);
      return typeof member === 'function' ? member.bind(target) : member;
    },
  }) as HeadProjection;
  const backend = assembleBackend({ ...fakes.ports, heads: records });
  return { backend, fakes, startOutage: () => (outage = true) };
};

const alice = scopeOf({ sub: 'alice', groups: ['project:p1:member'] });
const admin = scopeOf({ sub: 'ops', groups: ['org:admin', 'project:p1:admin'] });
const observation = (id: string) => ({ eventId: id, session: 's1', at: '2026-06-01T00:00:00.000Z' });

describe('Class: AppliedMemoryService', () => {
  it("orders sources so the agent's own preference wins over the principal's, and the profile is kept", async () => {
    const { backend } = backendWithOutage(() => false);
    await backend.beliefs.learn(
      alice,
      [declared('tone', 'formal'), declared('timezone', 'UTC', { kind: 'profile' })],
      observation('e1'),
    );
    await backend.beliefs.learn(alice, [declared('tone', 'casual', { agent: 'coder' })], observation('e2'));

    const coder = await backend.appliedMemory.applied(alice, { agent: 'coder' });
    const writer = await backend.appliedMemory.applied(alice, { agent: 'writer' });

    expect(coder.values.tone?.value).toBe('casual');
    expect(writer.values.tone?.value).toBe('formal');
    expect(coder.values.timezone).toMatchObject({ value: 'UTC', source: 'personal', belief: { kind: 'profile' } });
  });

  it('degrades when a part of personal memory is unavailable: the rest is returned and the part is named', async () => {
    const { backend, startOutage } = backendWithOutage((kind, _, agent) => kind === 'preference' && agent === 'coder');
    await backend.beliefs.learn(alice, [declared('timezone', 'UTC', { kind: 'profile' })], observation('e1'));
    await backend.beliefs.learn(alice, [declared('tone', 'casual', { agent: 'coder' })], observation('e2'));
    startOutage();

    const applied = await backend.appliedMemory.applied(alice, { agent: 'coder' });

    expect(applied.values.timezone?.value).toBe('UTC');
    expect(applied.values.tone).toBeUndefined();
    expect(applied.limitations).toEqual([{ part: 'agent-preferences', effect: 'unavailable just now; left out' }]);
  });

  it('withholds every personal value when the guardrails that bound them cannot be read', async () => {
    const { backend, startOutage } = backendWithOutage((kind) => kind === 'guardrail');
    await backend.guardrails.put(admin, {}, 'volume', undefined, { type: 'range', min: 0, max: 5 });
    await backend.beliefs.learn(alice, [declared('volume', 11)], observation('e1'));
    startOutage();

    const applied = await backend.appliedMemory.applied(alice, { agent: 'coder' });

    expect(applied.values).toEqual({});
    expect(applied.limitations).toContainEqual(expect.objectContaining({ part: 'organisation-guardrails' }));
  });

  it('answers a project the caller is not a member of as absent, before reading anything', async () => {
    const { backend } = backendWithOutage(() => false);

    await expect(
      backend.appliedMemory.applied(scopeOf({ sub: 'bob' }), { agent: 'coder', project: 'p1' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('audits each clamp once per day, by reason code and key only', async () => {
    const { backend, fakes } = backendWithOutage(() => false);
    await backend.guardrails.put(admin, {}, 'volume', undefined, { type: 'range', min: 0, max: 5 });
    await backend.guardrails.put(admin, {}, 'tone', undefined, {
      type: 'enum',
      allowed: ['formal'],
      default: 'formal',
    });
    await backend.beliefs.learn(
      alice,
      [declared('volume', 11), declared('tone', 'zzz-unique-tone')],
      observation('e1'),
    );

    const first = await backend.appliedMemory.applied(alice, { agent: 'coder' });
    await backend.appliedMemory.applied(alice, { agent: 'coder' });
    const trail = await fakes.auditTrail.list('acme', { limit: 50 });

    expect(first.clamps.map(({ key, reason }) => [key, reason])).toEqual([
      ['tone', 'enum.not_allowed'],
      ['volume', 'range.above_max'],
    ]);
    const clampEntries = trail.items.filter((entry) => entry.action === 'applied.clamp');
    expect(clampEntries.map(({ recordId, reasonCode, decision }) => [recordId, reasonCode, decision]).sort()).toEqual([
      ['tone', 'enum.not_allowed', 'clamped'],
      ['volume', 'range.above_max', 'clamped'],
    ]);
    expect(JSON.stringify(trail.items)).not.toContain('zzz-unique-tone');
  });
});
