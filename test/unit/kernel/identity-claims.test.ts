import { describe, expect, it } from 'vitest';
import { UnauthenticatedError } from '../../../lambdas/kernel/identity/identity.errors.ts';
import { readVerifiedClaims } from '../../../lambdas/kernel/identity/verified-claims.ts';
import { refusalOf } from '../../support/refusals.ts';

const claimsWithGroups = (groups: unknown) => ({
  sub: 'alice',
  'custom:tenant': 'acme',
  client_id: 'coder-app',
  'cognito:groups': groups,
});

describe('Function: readVerifiedClaims', () => {
  describe('Claim: cognito:groups as the JSON array Cognito puts in the token', () => {
    it('reads each element as one group name', () => {
      // Act
      const claims = readVerifiedClaims(claimsWithGroups(['project:p7:member', 'project:p9:admin', 'org:admin']));

      // Assess
      expect(claims.memberships).toEqual([
        { projectId: 'p7', role: 'member' },
        { projectId: 'p9', role: 'admin' },
      ]);
      expect(claims.orgAdmin).toBe(true);
    });

    it.each([
      ['a comma', 'project:p7:member,org:admin'],
      ['a space', 'project:p7:member org:admin'],
      ['a tab', 'project:p7:member\torg:admin'],
      ['brackets', '[org:admin]'],
    ])('refuses the whole token when one name holds %s, rather than reading it as several groups', (_, name) => {
      // Act & Assess
      expect(() => readVerifiedClaims(claimsWithGroups([name]))).toThrow(UnauthenticatedError);
    });

    it.each([
      'admins',
      'org:owner',
      'org:admin:x',
      'project:p7',
      'project:p7:Member',
      'project:../x:member',
      `project:${'p'.repeat(65)}:member`,
      '',
    ])('refuses the whole token for the name %j, outside project:{id}:{role} and org:admin', (name) => {
      // Act & Assess
      expect(() => readVerifiedClaims(claimsWithGroups(['project:p7:member', name]))).toThrow(UnauthenticatedError);
    });

    it('refuses an element that is not a string', () => {
      // Act & Assess
      expect(() => readVerifiedClaims(claimsWithGroups(['project:p7:member', 7]))).toThrow(UnauthenticatedError);
    });

    it('says which rule the token broke without repeating the name', () => {
      // Act
      const refusal = refusalOf(() => readVerifiedClaims(claimsWithGroups(['project:p7:member,org:admin'])));

      // Assess
      expect(refusal.message).toMatch(/group/);
      expect(refusal.message).not.toContain('p7');
    });
  });

  describe('Claim: cognito:groups in the "[a b]" string form API Gateway hands a Lambda function', () => {
    it('reads the space-separated names between the brackets', () => {
      // Act
      const claims = readVerifiedClaims(claimsWithGroups('[project:p7:member project:p9:admin]'));

      // Assess
      expect(claims.memberships).toEqual([
        { projectId: 'p7', role: 'member' },
        { projectId: 'p9', role: 'admin' },
      ]);
      expect(claims.orgAdmin).toBe(false);
    });

    it('reads "[]" and an absent claim as no groups', () => {
      // Act
      const empty = readVerifiedClaims(claimsWithGroups('[]'));
      const absent = readVerifiedClaims({ sub: 'alice', 'custom:tenant': 'acme', client_id: 'coder-app' });

      // Assess
      expect(empty).toMatchObject({ memberships: [], orgAdmin: false });
      expect(absent).toMatchObject({ memberships: [], orgAdmin: false });
    });

    it('does not make an org admin of a member whose one group name holds a comma', () => {
      // Act & Assess
      expect(() => readVerifiedClaims(claimsWithGroups('[project:p7:member,org:admin]'))).toThrow(UnauthenticatedError);
    });

    it.each([
      ['a fragment outside the grammar beside a valid one', '[x org:admin]'],
      ['two spaces in a row', '[project:p7:member  org:admin]'],
      ['a leading space', '[ org:admin]'],
      ['a tab', '[project:p7:member\torg:admin]'],
      ['no brackets', 'org:admin'],
      ['a comma-separated list', 'project:p7:member,org:admin'],
      ['JSON text', '["org:admin"]'],
      ['an unclosed bracket', '[org:admin'],
    ])('refuses the whole token for %s', (_, form) => {
      // Act & Assess
      expect(() => readVerifiedClaims(claimsWithGroups(form))).toThrow(UnauthenticatedError);
    });
  });
});
