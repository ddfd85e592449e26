import { createHash } from 'node:crypto';
import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import { DomainError, ServiceUnavailableError } from '../../kernel/errors/domain-error.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import {
  applyGuardrails,
  type ClampRecord,
  GUARDRAIL,
  type GuardrailSet,
  type GuardrailsService,
  type ValueSource,
} from '../guardrails/public.ts';
import type { RuleKind, RuleValue } from './belief.schema.ts';
import type { BeliefsService, BeliefView } from './beliefs-service.ts';

/** One key as an agent may act on it. A multi-valued key applies a list. */
export interface AppliedEntry {
  readonly value: RuleValue | readonly RuleValue[];
  readonly source: ValueSource;
  /** The belief the value came from, when it is (or started as) the principal's own. */
  readonly belief?: { readonly id: string; readonly kind: RuleKind } | undefined;
}

export const MEMORY_PARTS = [
  'profile',
  'preferences',
  'agent-preferences',
  'organisation-guardrails',
  'project-guardrails',
  'audit',
] as const;
export type MemoryPart = (typeof MEMORY_PARTS)[number];

/** Part of memory that could not be read (or, for `audit`, written) just now, and what that changed. */
export interface Limitation {
  readonly part: MemoryPart;
  readonly effect: string;
}

export interface AppliedMemory {
  readonly values: Readonly<Record<string, AppliedEntry>>;
  readonly clamps: readonly ClampRecord[];
  readonly limitations: readonly Limitation[];
}

export interface AppliedMemoryDependencies {
  readonly beliefs: BeliefsService;
  readonly guardrails: GuardrailsService;
  readonly audit: AuditTrail;
  readonly clock: Clock;
}

interface Personal {
  readonly value: RuleValue | readonly RuleValue[];
  readonly id: string;
  readonly kind: RuleKind;
}

const ALL = 100;
/** Clamp audit entries this process already wrote today; a repeat read of the same clamp is not re-audited. */
const AUDITED_CAPACITY = 10_000;

/**
 * The applied view (DESIGN §5): the principal's mature beliefs — profile, then preferences at large, then
 * the agent's own — with the shared defaults for keys they lack, every value clamped by the organisation's
 * guardrails and then the project's. The clamp runs here, on every read, so no agent can receive a value
 * outside an organisation guardrail whatever it asks for.
 *
 * Degrade, don't fail: a part of memory that cannot be read now is named in `limitations` and the rest is
 * returned — except that personal values are never returned unclamped: without the guardrails they are
 * withheld.
 */
export class AppliedMemoryService {
  readonly #deps: AppliedMemoryDependencies;
  readonly #audited = new Set<string>();

  constructor(deps: AppliedMemoryDependencies) {
    this.#deps = deps;
  }

  async applied(scope: Scope, request: { agent: string; project?: string | undefined }): Promise<AppliedMemory> {
    // A project the caller is not a member of is 404 before anything is read, like any other scoped path.
    if (request.project !== undefined) scope.namespace(GUARDRAIL, { project: request.project });
    const limitations: Limitation[] = [];
    const [profile, preferences, agentPreferences, organisation, project] = await Promise.all([
      this.#part(limitations, 'profile', () => this.#mature(scope, { kind: 'profile' })),
      this.#part(limitations, 'preferences', () => this.#mature(scope, { kind: 'preference' })),
      this.#part(limitations, 'agent-preferences', () =>
        this.#mature(scope, { kind: 'preference', agent: request.agent }),
      ),
      this.#part(limitations, 'organisation-guardrails', () => this.#deps.guardrails.guardrailSet(scope, {})),
      request.project === undefined
        ? Promise.resolve({})
        : this.#part(limitations, 'project-guardrails', () =>
            this.#deps.guardrails.guardrailSet(scope, { project: request.project }),
          ),
    ]);
    if (organisation === undefined || project === undefined) {
      const missing = organisation === undefined ? 'organisation' : 'project';
      limitations.push({
        part: `${missing}-guardrails`,
        effect: 'personal values withheld: they are never returned without the guardrails that bound them',
      });
      return { values: {}, clamps: [], limitations: dedupe(limitations) };
    }

    // Later sources override earlier ones: the agent's own preference is the most specific.
    const personal = new Map<string, Personal>();
    for (const part of [profile, preferences, agentPreferences])
      for (const view of part ?? []) {
        const value = view.belief.appliedValue;
        if (value !== undefined) personal.set(view.belief.key, { value, id: view.id, kind: view.belief.kind });
      }
    const { values, clamps } = clampAll(personal, organisation, project);
    const auditFailed = await this.#audit(scope, request, clamps);
    if (auditFailed)
      limitations.push({ part: 'audit', effect: 'the clamps in this response could not all be recorded; read again' });
    return { values, clamps, limitations: dedupe(limitations) };
  }

  /**
   * How the guardrails in force treat one belief's applied value: the clamps the applied view would record
   * for it (none when it is not applied, or applied unchanged). Read-only: inspection is not application.
   */
  async clampsFor(scope: Scope, belief: BeliefView, project: string | undefined): Promise<readonly ClampRecord[]> {
    // A project the caller is not a member of is 404, like on every other path.
    if (project !== undefined) scope.namespace(GUARDRAIL, { project });
    const value = belief.belief.appliedValue;
    if (value === undefined) return [];
    const key = belief.belief.key;
    const [organisation, projectSet] = await Promise.all([
      this.#deps.guardrails.guardrailOn(scope, {}, key),
      project === undefined ? Promise.resolve({}) : this.#deps.guardrails.guardrailOn(scope, { project }, key),
    ]);
    const personal = new Map([[key, { value, id: belief.id, kind: belief.belief.kind }]]);
    return clampAll(personal, organisation, projectSet).clamps;
  }

  async #mature(scope: Scope, filter: { kind: RuleKind; agent?: string | undefined }): Promise<BeliefView[]> {
    const mature: BeliefView[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#deps.beliefs.list(scope, { ...filter, status: 'mature' }, { limit: ALL, cursor });
      mature.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return mature;
  }

  /** Reads one part; a part that is unavailable is recorded as a limitation (undefined), anything else throws. */
  async #part<T>(limitations: Limitation[], part: MemoryPart, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof DomainError && !(error instanceof ServiceUnavailableError)) throw error;
      limitations.push({ part, effect: 'unavailable just now; left out' });
      return undefined;
    }
  }

  /**
   * One audit entry per caller, project, day, key and clamp reason: the entry id is derived from them, so
   * repeated reads are duplicates the trail ignores (and this process skips writing). Returns whether any
   * write failed.
   */
  async #audit(
    scope: Scope,
    request: { agent: string; project?: string | undefined },
    clamps: readonly ClampRecord[],
  ): Promise<boolean> {
    const now = this.#deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    const results = await Promise.allSettled(
      clamps.map(async (clamp) => {
        // Derived from what the entry shows anyway, never from the values: an id must not let anyone who reads
        // the trail test guesses of what the principal asked for.
        const id = createHash('sha256')
          .update(
            JSON.stringify([
              scope.tenant,
              scope.principal,
              request.project ?? null,
              day,
              clamp.key,
              clamp.reason,
              clamp.guardrail.scope,
              clamp.guardrail.type,
            ]),
          )
          .digest('base64url')
          .slice(0, 26);
        if (this.#audited.has(id)) return;
        await this.#deps.audit.append(scope.tenant, {
          id: `clamp-${id}`,
          occurredAt: now.toISOString(),
          actor: scope.actor,
          action: 'applied.clamp',
          recordKind: 'guardrail',
          recordId: clamp.key,
          revision: null,
          decision: 'clamped',
          reasonCode: clamp.reason,
        });
        if (this.#audited.size >= AUDITED_CAPACITY) this.#audited.clear();
        this.#audited.add(id);
      }),
    );
    return results.some((result) => result.status === 'rejected');
  }
}

const dedupe = (limitations: readonly Limitation[]): Limitation[] =>
  limitations.filter(
    (limitation, index) =>
      limitations.findIndex(({ part, effect }) => part === limitation.part && effect === limitation.effect) === index,
  );

const only = (set: GuardrailSet, key: string): GuardrailSet => {
  const guardrail = Object.hasOwn(set, key) ? set[key] : undefined;
  return guardrail === undefined ? {} : { [key]: guardrail };
};

const without = (set: GuardrailSet, keys: ReadonlySet<string>): GuardrailSet =>
  Object.fromEntries(Object.entries(set).filter(([key]) => !keys.has(key)));

/**
 * Single-valued keys go through the clamp together; a multi-valued key element by element (each element is
 * a value the agent would act on), keeping the elements the guardrails admit or replace, without repeats.
 */
const clampAll = (
  personal: ReadonlyMap<string, Personal>,
  organisation: GuardrailSet,
  project: GuardrailSet,
): { values: Record<string, AppliedEntry>; clamps: ClampRecord[] } => {
  const multiKeys = new Set([...personal].filter(([, entry]) => Array.isArray(entry.value)).map(([key]) => key));
  const single = Object.fromEntries(
    [...personal].filter(([key]) => !multiKeys.has(key)).map(([key, entry]) => [key, entry.value as RuleValue]),
  );
  const view = applyGuardrails({
    personal: single,
    organisation: without(organisation, multiKeys),
    project: without(project, multiKeys),
  });
  const values: Record<string, AppliedEntry> = {};
  const clamps: ClampRecord[] = [...view.clamps];
  for (const [key, applied] of Object.entries(view.values)) {
    const own = personal.get(key);
    values[key] = {
      ...applied,
      ...(own && applied.source !== 'default' && { belief: { id: own.id, kind: own.kind } }),
    };
  }
  for (const key of [...multiKeys].sort()) {
    const own = personal.get(key) as Personal;
    const elements: RuleValue[] = [];
    let source: ValueSource = 'personal';
    for (const element of own.value as readonly RuleValue[]) {
      const one = applyGuardrails({
        personal: { [key]: element },
        organisation: only(organisation, key),
        project: only(project, key),
      });
      clamps.push(...one.clamps);
      const applied = one.values[key];
      if (applied === undefined) continue;
      if (applied.source !== 'personal') source = 'guardrail';
      if (!elements.includes(applied.value)) elements.push(applied.value);
    }
    if (elements.length > 0) values[key] = { value: elements, source, belief: { id: own.id, kind: own.kind } };
  }
  return {
    values: Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    clamps: clamps.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
};
