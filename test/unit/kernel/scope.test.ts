import { describe, expect, it } from 'vitest';
import { UnauthenticatedError } from '../../../lambdas/kernel/identity/identity.errors.ts';
import { Scope } from '../../../lambdas/kernel/identity/scope.ts';
import { readVerifiedClaims } from '../../../lambdas/kernel/identity/verified-claims.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

describe('Function: readVerifiedClaims', () => {
  it('reads tenant, principal, client and memberships from Cognito-shaped claims', () => {
    const claims = readVerifiedClaims({
      sub: 'alice',
      'custom:tenant': 'acme',
      client_id: 'coder-app',
      'cognito:groups': ['project:p7:member', 'org:admin'],
    });

    expect(claims).toMatchObject({
      principal: 'alice',
      tenant: 'acme',
      client: 'coder-app',
      memberships: [{ projectId: 'p7', role: 'member' }],
      orgAdmin: true,
    });
  });

  it('reads the "[a b]" string form API Gateway gives array claims', () => {
    const claims = readVerifiedClaims({
      sub: 'alice',
      'custom:tenant': 'acme',
      client_id: 'coder-app',
      'cognito:groups': '[project:p7:member project:p9:admin]',
    });

    expect(claims.memberships).toEqual([
      { projectId: 'p7', role: 'member' },
      { projectId: 'p9', role: 'admin' },
    ]);
    expect(claims.orgAdmin).toBe(false);
  });

  it.each([
    ['no tenant', { sub: 'alice', client_id: 'c' }],
    ['no sub', { 'custom:tenant': 'acme', client_id: 'c' }],
    ['no client', { sub: 'alice', 'custom:tenant': 'acme' }],
    ['a tenant with a separator', { sub: 'alice', 'custom:tenant': 'acme/other', client_id: 'c' }],
    ['a principal with traversal', { sub: '../bob', 'custom:tenant': 'acme', client_id: 'c' }],
  ])('refuses claims with %s', (_, claims) => {
    expect(() => readVerifiedClaims(claims)).toThrow(UnauthenticatedError);
  });
});

describe('Class: Scope', () => {
  describe('Method: namespace', () => {
    it('builds the principal namespace from the token, never from input', () => {
      const namespace = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);

      expect(namespace.key).toBe('t/acme/p/alice/note');
      expect(namespace.owner).toEqual({ type: 'principal' });
    });

    it("narrows to an agent inside the caller's own space", () => {
      const namespace = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.preference, { agent: 'coder' });

      expect(namespace.key).toBe('t/acme/p/alice/preference/a/coder');
    });

    it('selects a project space only for a member', () => {
      const member = scopeOf({ groups: ['project:p7:member'] });

      expect(member.namespace(KINDS.note, { project: 'p7' }).key).toBe('t/acme/g/p7/note');
      expect(() => member.namespace(KINDS.note, { project: 'p8' })).toThrow(
        expect.objectContaining({ code: 'not_found' }),
      );
    });

    it.each(['../bob', 'a/b', '', 'x'.repeat(65), 'a b', 'ümlaut', '%2e%2e'])('refuses the narrowing %j', (agent) => {
      expect(() => scopeOf().namespace(KINDS.note, { agent })).toThrow(
        expect.objectContaining({ code: 'validation.failed' }),
      );
    });

    it('refuses an agent narrowing on a project namespace', () => {
      const member = scopeOf({ groups: ['project:p7:member'] });

      expect(() => member.namespace(KINDS.note, { project: 'p7', agent: 'coder' })).toThrow(
        expect.objectContaining({ code: 'validation.failed' }),
      );
    });

    it('refuses a kind outside the closed set', () => {
      expect(() => scopeOf().namespace('secrets' as never)).toThrow(
        expect.objectContaining({ code: 'validation.failed' }),
      );
      // A look-alike of a declared kind is not one: only `defineRecordKind` makes kinds.
      expect(() => scopeOf().namespace({ ...KINDS.note })).toThrow(
        expect.objectContaining({ code: 'validation.failed' }),
      );
    });
  });

  it("builds the organisation's own namespace for its shared kinds only, the same one for every member", () => {
    const alice = scopeOf({ sub: 'alice' }).namespace(KINDS.guardrail, { organisation: true });
    const bob = scopeOf({ sub: 'bob' }).namespace(KINDS.guardrail, { organisation: true });

    expect(alice.key).toBe('t/acme/o/guardrail');
    expect(alice.equals(bob)).toBe(true);
    expect(() => scopeOf().namespace(KINDS.preference, { organisation: true })).toThrow(/shared settings/);
    expect(() => scopeOf().namespace(KINDS.guardrail, { organisation: true, agent: 'coder' })).toThrow(
      /shared settings/,
    );
    expect(scopeOf({ tenant: 'globex' }).namespace(KINDS.guardrail, { organisation: true }).key).toBe(
      't/globex/o/guardrail',
    );
  });

  it('knows a project admin by the admin role in that project only', () => {
    const scope = scopeOf({ groups: ['project:p1:admin', 'project:p2:member'] });

    expect(scope.isAdminOf('p1')).toBe(true);
    expect(scope.isAdminOf('p2')).toBe(false);
    expect(scope.isAdminOf('p3')).toBe(false);
  });

  it('cannot be built other than from verified claims', () => {
    const construct = Scope as unknown as new (token: symbol, claims: unknown) => Scope;
    expect(() => new construct(Symbol('scope-construction'), {})).toThrow(TypeError);
  });
});
