import { DomainError, NotFoundError } from '../../kernel/errors/domain-error.ts';
import { ForbiddenError } from '../../kernel/identity/identity.errors.ts';
import type { Narrowing, Scope } from '../../kernel/identity/scope.ts';
import type { ExpectedRevisions, Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { RecordService, RecordView } from '../../kernel/records/record-service.ts';
import { projectGuardrailsSetAside } from './clamp.ts';
import { GUARDRAIL, GUARDRAIL_SET_MAX_KEYS, type Guardrail, type GuardrailSet } from './guardrail.schema.ts';

export type GuardrailView = RecordView<Guardrail>;

/** Where a guardrail is set: the organisation's space, or one project's. */
export type GuardrailSpace = { readonly project?: string | undefined };

/** A project guardrail the organisation's guardrail on the same key would set aside: refused on write. */
export class GuardrailConflictError extends DomainError {
  readonly code = 'guardrail.conflicts_with_organisation';

  constructor() {
    super(
      "The organisation's guardrail on this key denies or locks it, or admits no value this guardrail admits; a project guardrail can only narrow the organisation's",
    );
  }
}

/** A space holds at most GUARDRAIL_SET_MAX_KEYS guardrails, so the applied view reads a bounded set. */
export class GuardrailLimitError extends DomainError {
  readonly code = 'guardrail.limit_reached';

  constructor() {
    super(`A space sets at most ${GUARDRAIL_SET_MAX_KEYS} guardrails; delete one first`);
  }
}

const SET_PAGE = 100;

/**
 * Guardrails, one record per key (the record id is the key): the organisation's, which org admins manage and
 * every member of the tenant is bounded by, and each project's, which that project's admins manage. A
 * project guardrail can only narrow the organisation's on the same key: one that the organisation's would set
 * aside is refused when it is written, and one that a later organisation guardrail sets aside stops applying
 * (the clamp decides with the organisation's alone).
 */
export class GuardrailsService {
  readonly #records: RecordService<Guardrail>;

  constructor(records: RecordService<Guardrail>) {
    this.#records = records;
  }

  async put(
    scope: Scope,
    space: GuardrailSpace,
    key: string,
    expected: ExpectedRevisions | undefined,
    guardrail: Guardrail,
  ): Promise<{ guardrail: GuardrailView; created: boolean }> {
    const narrowing = this.#managed(scope, space);
    if (space.project !== undefined) {
      const organisation = await this.guardrailOn(scope, {}, key);
      if (projectGuardrailsSetAside(organisation, { [key]: guardrail }).length > 0) throw new GuardrailConflictError();
    }
    // One listing answers both "is this key new?" and "is the space full?".
    const current = await this.guardrailSet(scope, space);
    if (!Object.hasOwn(current, key) && Object.keys(current).length >= GUARDRAIL_SET_MAX_KEYS)
      throw new GuardrailLimitError();
    const { record, created } = await this.#records.put(scope, narrowing, key, expected, guardrail);
    return { guardrail: record, created };
  }

  get(scope: Scope, space: GuardrailSpace, key: string): Promise<GuardrailView> {
    return this.#records.get(scope, this.#readable(space), key);
  }

  list(scope: Scope, space: GuardrailSpace, page: PageRequest): Promise<Page<GuardrailView>> {
    return this.#records.list(scope, this.#readable(space), page);
  }

  /** Who may manage the space is checked before the revision named, so a caller who may not act learns that first. */
  async remove(
    scope: Scope,
    space: GuardrailSpace,
    key: string,
    expected: ExpectedRevisions | undefined,
  ): Promise<void> {
    await this.#records.remove(scope, this.#managed(scope, space), key, expected);
  }

  /** Every guardrail of a space, by key: what the clamp reads. */
  async guardrailSet(scope: Scope, space: GuardrailSpace): Promise<GuardrailSet> {
    const set: Record<string, Guardrail> = {};
    let cursor: string | undefined;
    do {
      const page = await this.#records.list(scope, this.#readable(space), { limit: SET_PAGE, cursor });
      for (const view of page.items) if (view.content !== null) set[view.id] = view.content;
      cursor = page.nextCursor;
    } while (cursor);
    return set;
  }

  /** The guardrail on one key, as a set of at most that key: what inspecting one belief needs. */
  async guardrailOn(scope: Scope, space: GuardrailSpace, key: string): Promise<GuardrailSet> {
    const view = await this.#records.get(scope, this.#readable(space), key).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    return view?.content ? { [key]: view.content } : {};
  }

  /** Reading: the organisation's guardrails are every member's; a project's, its members' (else 404). */
  #readable(space: GuardrailSpace): Narrowing {
    return space.project === undefined ? { organisation: true } : { project: space.project };
  }

  /**
   * Managing: the organisation's guardrails are org admins' (403 for others, who may read them); a project's
   * are its admins' (404 for non-members, who may not know the project, 403 for members).
   */
  #managed(scope: Scope, space: GuardrailSpace): Narrowing {
    const narrowing = this.#readable(space);
    scope.namespace(GUARDRAIL, narrowing);
    if (space.project === undefined && !scope.orgAdmin)
      throw new ForbiddenError("Only an organisation admin may manage the organisation's guardrails");
    if (space.project !== undefined && !scope.isAdminOf(space.project))
      throw new ForbiddenError("Only the project's admins may manage its guardrails");
    return narrowing;
  }
}
