import { etagOf, expectedRevisionsOf } from '../../../http/entity-tags.ts';
import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { issuedCursor } from '../../../http/listing-cursors.ts';
import { pageRequestOf } from '../../../http/page-size.ts';
import { jsonResponse, noContent, ok } from '../../../http/responses.ts';
import type { AppliedMemoryService } from '../applied-memory-service.ts';
import type { BeliefsService } from '../beliefs-service.ts';
import type { SessionEventsService } from '../session-events-service.ts';
import * as learning from './learning.operations.ts';
import * as views from './learning.views.ts';

export interface LearningServices {
  readonly sessionEvents: SessionEventsService;
  readonly beliefs: BeliefsService;
  readonly appliedMemory: AppliedMemoryService;
}

/** Learned memory's handlers, by export name. */
export const learningHandlers = (services: LearningServices, http: HttpContext) => ({
  appendSessionEvent: httpOperation(learning.appendSessionEvent, http).handler(async ({ scope, input }) => {
    const appended = await services.sessionEvents.append(scope, input.params.sessionId, input.body, input.idempotency);
    return jsonResponse(
      201,
      views.toAppendedEventResponse(appended),
      appended.replayed ? { 'Idempotent-Replayed': 'true' } : {},
    );
  }),

  listSessionEvents: httpOperation(learning.listSessionEvents, http).handler(async ({ scope, input }) => {
    const page = await services.sessionEvents.list(scope, input.params.sessionId, pageRequestOf(http, input.query));
    return ok({
      items: page.items.map(views.toSessionEventResponse),
      nextCursor: issuedCursor(input, page.nextCursor),
    });
  }),

  listBeliefs: httpOperation(learning.listBeliefs, http).handler(async ({ scope, input }) => {
    const { kind, agent, status } = input.query;
    const page = await services.beliefs.list(scope, { kind, agent, status }, pageRequestOf(http, input.query));
    return ok({ items: page.items.map(views.toBeliefResponse), nextCursor: issuedCursor(input, page.nextCursor) });
  }),

  getBelief: httpOperation(learning.getBelief, http).handler(async ({ scope, input }) => {
    const belief = await services.beliefs.inspect(scope, input.params.id);
    const clamps = await services.appliedMemory.clampsFor(scope, belief, input.query.project);
    return ok(views.toInspectedBeliefResponse(belief, clamps), { etag: etagOf(belief.id, belief.revision) });
  }),

  listBeliefHistory: httpOperation(learning.beliefHistory, http).handler(async ({ scope, input }) => {
    const page = await services.beliefs.history(scope, input.params.id, pageRequestOf(http, input.query));
    return ok({ items: page.items.map(views.toBeliefResponse), nextCursor: issuedCursor(input, page.nextCursor) });
  }),

  correctBelief: httpOperation(learning.correctBelief, http).handler(async ({ scope, input }) => {
    const { id } = input.params;
    const belief = await services.beliefs.correct(scope, id, expectedRevisionsOf(input.ifMatch, id), input.body);
    return ok(views.toBeliefResponse(belief), { etag: etagOf(belief.id, belief.revision) });
  }),

  forgetBelief: httpOperation(learning.forgetBelief, http).handler(async ({ scope, input }) => {
    const { id } = input.params;
    await services.beliefs.forget(scope, id, expectedRevisionsOf(input.ifMatch, id));
    return noContent();
  }),

  resetBeliefs: httpOperation(learning.resetBeliefs, http).handler(async ({ scope, input }) => {
    const reset = await services.beliefs.reset(scope, input.body);
    return ok({ reset });
  }),

  getAppliedMemory: httpOperation(learning.getAppliedMemory, http).handler(async ({ scope, input }) => {
    const applied = await services.appliedMemory.applied(scope, input.query);
    return ok(views.toAppliedResponse(input.query, applied));
  }),
});
