import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('Property: namespaces by construction', () => {
  it('never gives two different callers the same namespace', () => {
    fc.assert(
      fc.property(
        token,
        token,
        token,
        token,
        fc.option(token, { nil: undefined }),
        (tenantA, subA, tenantB, subB, agent) => {
          fc.pre(tenantA !== tenantB || subA !== subB);
          const a = scopeOf({ tenant: tenantA, sub: subA }).namespace(KINDS.note, { agent });
          const b = scopeOf({ tenant: tenantB, sub: subB }).namespace(KINDS.note, { agent });
          expect(a.key).not.toBe(b.key);
          expect(a.hash).not.toBe(b.hash);
        },
      ),
    );
  });

  it("keeps every narrowing inside the caller's own prefix", () => {
    fc.assert(
      fc.property(token, token, token, (tenant, sub, agent) => {
        const namespace = scopeOf({ tenant, sub }).namespace(KINDS.preference, { agent });
        expect(namespace.key.startsWith(`t/${tenant}/p/${sub}/preference/`)).toBe(true);
        expect(namespace.key.split('/')).toHaveLength(7);
      }),
    );
  });

  it('refuses any narrowing that is not a safe token', () => {
    const unsafe = fc.string({ maxLength: 80 }).filter((value) => !/^[A-Za-z0-9_-]{1,64}$/.test(value));
    fc.assert(
      fc.property(unsafe, (agent) => {
        expect(() => scopeOf().namespace(KINDS.note, { agent })).toThrow();
      }),
    );
  });

  it('opens a project namespace only for its members', () => {
    fc.assert(
      fc.property(fc.uniqueArray(token, { minLength: 1, maxLength: 5 }), token, (memberOf, asked) => {
        const scope = scopeOf({ groups: memberOf.map((project) => `project:${project}:member`) });
        if (memberOf.includes(asked))
          expect(scope.namespace(KINDS.note, { project: asked }).key).toBe(`t/acme/g/${asked}/note`);
        else expect(() => scope.namespace(KINDS.note, { project: asked })).toThrow();
      }),
    );
  });
});
