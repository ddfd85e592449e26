import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withinGuardrail } from '../../lambdas/capabilities/guardrails/clamp.ts';
import { Guardrail, type GuardrailSet } from '../../lambdas/capabilities/guardrails/guardrail.schema.ts';
import { GuardrailConflictError } from '../../lambdas/capabilities/guardrails/guardrails-service.ts';
import type { CandidateRule, RuleValue } from '../../lambdas/capabilities/learning/belief.schema.ts';
import { inMemoryBackend } from '../support/in-memory-backend.ts';
import { scopeOf } from '../support/scopes.ts';

/*
 * "No request shape lets an agent receive a value outside an organisation guardrail", through the whole
 * service: guardrails written through the guardrail service (project ones only where the organisation lets
 * them stand), beliefs learned through the merge (single- and multi-valued, principal-wide and per agent,
 * profile and preference), and the applied view read for any agent, with or without the project.
 */

const KEYS = ['alpha', 'beta', 'gamma'] as const;
const AGENTS = ['coder', 'writer'] as const;
const number = fc.oneof(fc.integer({ min: -12, max: 12 }), fc.double({ min: -12, max: 12, noNaN: true }));
const value: fc.Arbitrary<RuleValue> = fc.oneof(number, fc.constantFrom('x', 'y', 'z'), fc.boolean());

const guardrail: fc.Arbitrary<Guardrail> = fc
  .oneof(
    fc.tuple(number, number).map(([a, b]) => ({ type: 'range', min: Math.min(a, b), max: Math.max(a, b) })),
    fc
      .uniqueArray(value, { minLength: 1, maxLength: 3, comparator: 'SameValueZero' })
      .chain((allowed) =>
        fc.constantFrom(...allowed).map((fallback) => ({ type: 'enum', allowed, default: fallback })),
      ),
    value.map((locked) => ({ type: 'locked', value: locked })),
    fc.constant({ type: 'deny' }),
  )
  .map((candidate) => Guardrail.parse(candidate));
const guardrails: fc.Arbitrary<GuardrailSet> = fc.dictionary(fc.constantFrom(...KEYS), guardrail, { maxKeys: 3 });

const belief: fc.Arbitrary<CandidateRule> = fc
  .record({
    key: fc.constantFrom(...KEYS),
    value,
    kind: fc.constantFrom('profile', 'preference'),
    cardinality: fc.constantFrom('single', 'multi'),
    agent: fc.option(fc.constantFrom(...AGENTS), { nil: undefined }),
  })
  .map(({ agent, ...rule }) => ({
    ...rule,
    basis: 'declarative' as const,
    polarity: 'confirm' as const,
    // A profile fact is about the principal, never an agent's.
    ...(rule.kind === 'preference' && agent !== undefined && { agent }),
  }));

describe('Property: the applied view', () => {
  it('never hands an agent a value outside an organisation guardrail, whatever was learned or asked', async () => {
    await fc.assert(
      fc.asyncProperty(
        guardrails,
        guardrails,
        fc.array(belief, { maxLength: 6 }),
        fc.constantFrom(...AGENTS),
        fc.boolean(),
        async (organisation, project, beliefs, agent, withProject) => {
          const { backend, clock } = inMemoryBackend();
          const admin = scopeOf({ sub: 'ops', groups: ['org:admin', 'project:p1:admin'] });
          const alice = scopeOf({ sub: 'alice', groups: ['project:p1:member'] });
          for (const [key, rule] of Object.entries(organisation))
            await backend.guardrails.put(admin, {}, key, undefined, rule);
          for (const [key, rule] of Object.entries(project))
            await backend.guardrails.put(admin, { project: 'p1' }, key, undefined, rule).catch((error: unknown) => {
              if (!(error instanceof GuardrailConflictError)) throw error;
            });
          for (const [index, candidate] of beliefs.entries()) {
            clock.advance(1000);
            // A key drafted with another kind or cardinality than its belief is refused; that is fine here.
            await backend.beliefs
              .learn(alice, [candidate], { eventId: `e${index}`, session: 's1', at: clock.now().toISOString() })
              .catch(() => undefined);
          }

          const applied = await backend.appliedMemory.applied(alice, {
            agent,
            project: withProject ? 'p1' : undefined,
          });

          for (const [key, rule] of Object.entries(organisation)) {
            const entry = applied.values[key];
            if (rule.type === 'deny') expect(entry).toBeUndefined();
            if (entry === undefined) continue;
            const received = Array.isArray(entry.value) ? entry.value : [entry.value as RuleValue];
            for (const one of received) expect(withinGuardrail(one, rule), `${key}=${String(one)}`).toBe(true);
          }
          expect(applied.limitations).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
