import type { Scope } from '../../kernel/identity/scope.ts';
import { PROJECT_ADMIN_ROLE } from '../../kernel/identity/scope.ts';
import { ProjectRoleRequiredError } from './procedures.errors.ts';

/** The project role that coordinates a team's tasks (reference 001's manager agent); a project admin may too. */
export const MANAGER_ROLE = 'manager';

export const isManagerOf = (scope: Scope, project: string): boolean =>
  scope.memberships.some(
    (membership) =>
      membership.projectId === project && (membership.role === MANAGER_ROLE || membership.role === PROJECT_ADMIN_ROLE),
  );

/** Asked only once membership is known (a non-member has already been answered 404). */
export const requireManager = (scope: Scope, project: string): void => {
  if (!isManagerOf(scope, project))
    throw new ProjectRoleRequiredError(`Only the project's ${MANAGER_ROLE} may do this`);
};
