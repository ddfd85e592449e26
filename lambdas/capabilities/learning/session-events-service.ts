import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import { SensitiveContentRefusedError } from '../../kernel/protection/protection.errors.ts';
import { screenRule } from '../../kernel/protection/rule-screen.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { IdempotencyRequest, RecordService, RecordView } from '../../kernel/records/record-service.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { IdGenerator } from '../../kernel/time/ids.ts';
import type { BeliefsService, BeliefView, WithheldCandidate } from './beliefs-service.ts';
import { draftCandidates } from './extractors/deterministic-extractors.ts';
import type { SessionEventInput } from './session-event.schema.ts';

export type SessionEventView = RecordView<SessionEventInput>;

export interface AppendedEvent {
  readonly event: SessionEventView;
  readonly replayed: boolean;
  /** The beliefs this event confirmed or refuted, as they stand after it: learned memory, readable at once. */
  readonly beliefs: readonly BeliefView[];
  /** What the event suggested but long-term memory may not hold (personal identifiers, secrets). */
  readonly withheld: readonly WithheldCandidate[];
}

export interface SessionEventsDependencies {
  readonly events: RecordService<SessionEventInput>;
  readonly beliefs: BeliefsService;
  readonly audit: AuditTrail;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * Short-term memory and the way into long-term memory. An event is stored (encrypted, expiring, in the
 * session's own namespace; it may hold anything the principal said) and drafted into candidate rules by the
 * deterministic extractors, merged into beliefs inside the same request: the merges are prepared while the
 * event is written and committed only after it, so a belief never cites an event that was not stored. Only
 * screened candidates cross: nothing personal or secret derived from an event reaches a belief.
 *
 * Retrying an append with the same Idempotency-Key stores nothing twice and merges nothing twice (a belief
 * remembers the events folded into it), so a request that failed after its event was stored is safe to retry.
 */
export class SessionEventsService {
  readonly #deps: SessionEventsDependencies;

  constructor(deps: SessionEventsDependencies) {
    this.#deps = deps;
  }

  async append(
    scope: Scope,
    session: string,
    input: SessionEventInput,
    idempotency?: IdempotencyRequest,
  ): Promise<AppendedEvent> {
    // A signal is the harness asking for a long-term write: one that holds what long-term memory may not is
    // refused whole, before anything is stored.
    if (input.type === 'signal') await this.#refuseSensitiveSignal(scope, input);
    const candidates = draftCandidates(input);
    // The beliefs are merged while the event is being written, and written once it has committed.
    const { record, replayed, dependent } = await this.#deps.events.createWith(
      scope,
      { session },
      input,
      idempotency,
      (event, eventCommitted) =>
        this.#deps.beliefs.learn(
          scope,
          candidates,
          { eventId: event.id, session, at: event.createdAt },
          { eventCommitted },
        ),
    );
    return { event: record, replayed, beliefs: dependent.touched, withheld: dependent.withheld };
  }

  /** Newest first: what the session said last is what a harness usually wants back. */
  list(scope: Scope, session: string, page: PageRequest): Promise<Page<SessionEventView>> {
    return this.#deps.events.list(scope, { session }, { ...page, descending: true });
  }

  async #refuseSensitiveSignal(scope: Scope, signal: Extract<SessionEventInput, { type: 'signal' }>): Promise<void> {
    const screened = screenRule(signal);
    if (screened.verdict === 'clean') return;
    // The refusal is audited by reason code only: neither the value nor the key reaches the trail.
    await this.#deps.audit.append(scope.tenant, {
      id: `refusal-${this.#deps.ids.next()}`,
      occurredAt: this.#deps.clock.now().toISOString(),
      actor: scope.actor,
      action: 'learning.signal',
      recordKind: signal.kind,
      recordId: null,
      revision: null,
      decision: 'refused',
      reasonCode: 'protection.sensitive_content',
    });
    throw new SensitiveContentRefusedError(screened.reasons);
  }
}
