import { DomainError } from '../../kernel/errors/domain-error.ts';

/** The caller lacks the project role the action needs (the manager's, or the node's assignee). */
export class ProjectRoleRequiredError extends DomainError {
  readonly code = 'procedures.role_required';

  constructor(message: string) {
    super(message);
  }
}

/** A retired procedure is history: it is not refined, specialised or promoted onto. */
export class ProcedureRetiredError extends DomainError {
  readonly code = 'procedures.retired';

  constructor() {
    super('The procedure is retired');
  }
}

/** A node may start only once every prerequisite is verified; the unmet ones are named by their place. */
export class PrerequisitesUnmetError extends DomainError {
  readonly code = 'procedures.prerequisites_unmet';
  readonly unmet: readonly string[];

  constructor(unmet: readonly string[]) {
    super(`The node's prerequisites are not verified yet (${unmet.join(', ')})`);
    this.unmet = unmet;
  }
}

/** The change is not allowed from the node's or the task's current status; the allowed ones are named. */
export class InvalidTransitionError extends DomainError {
  readonly code = 'procedures.invalid_transition';

  constructor(message: string) {
    super(message);
  }
}

/** Promotion's compare-and-set lost: the head moved past the revision the candidate was built from. */
export class StaleCandidateError extends DomainError {
  readonly code = 'procedures.stale_candidate';

  constructor() {
    super('The procedure has changed since the candidate was built from it; the head is unchanged');
  }
}
