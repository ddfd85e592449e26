import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyScopeOf } from '../../../lambdas/kernel/crypto/key-scope.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('Function: keyScopeOf', () => {
  it('gives every namespace a Scope builds its owner: the principal (any kind, agent, session), the project, the organisation', () => {
    fc.assert(
      fc.property(
        token,
        token,
        token,
        fc.option(token, { nil: undefined }),
        fc.option(token, { nil: undefined }),
        (tenant, sub, project, agent, session) => {
          // Prepare
          const scope = scopeOf({ tenant, sub, groups: [`project:${project}:member`] });

          // Act
          const personal = keyScopeOf(tenant, scope.namespace(KINDS['session-events'], { agent, session }).key);
          const team = keyScopeOf(tenant, scope.namespace(KINDS.note, { project }).key);
          const task = keyScopeOf(tenant, scope.namespace(KINDS.note, { project, task: sub }).key);
          const organisation = keyScopeOf(tenant, scope.namespace(KINDS.guardrail, { organisation: true }).key);

          // Assess
          expect(personal).toEqual({ tenant, owner: 'principal', principal: sub });
          expect(team).toEqual({ tenant, owner: 'project', projectId: project });
          expect(task).toEqual(team);
          expect(organisation).toEqual({ tenant, owner: 'organisation' });
        },
      ),
    );
  });

  it.each([
    ['another tenant’s namespace', 'acme', 't/globex/p/alice/note'],
    ['a key with a segment too many', 'acme', 't/acme/p/alice/note/x'],
    ['a principal namespace without its kind', 'acme', 't/acme/p/alice'],
    ['an unknown owner', 'acme', 't/acme/x/alice/note'],
    ['a traversal', 'acme', 't/acme/p/../note'],
    ['nothing', 'acme', ''],
  ])('gives %s no key scope', (_, tenant, key) => {
    // Act & Assess
    expect(keyScopeOf(tenant, key)).toBeUndefined();
  });
});
