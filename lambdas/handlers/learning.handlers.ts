import type { Backend } from '../core/backend.ts';
import { httpOperation } from '../http/http-operation.ts';
import * as learning from '../http/learning.api.ts';
import { jsonResponse, noContent, ok } from '../http/responses.ts';

const pageSize = (backend: Backend, limit: number | undefined) =>
  limit ?? backend.config.current().listing.defaultPageSize;

export const appendSessionEventHandler = (backend: Backend) =>
  httpOperation(learning.appendSessionEvent, backend).handler(async ({ scope, input }) => {
    const appended = await backend.sessionEvents.append(scope, input.params.sessionId, input.body, input.idempotency);
    return jsonResponse(
      201,
      learning.toAppendedEventResponse(appended),
      appended.replayed ? { 'Idempotent-Replayed': 'true' } : {},
    );
  });

export const listSessionEventsHandler = (backend: Backend) =>
  httpOperation(learning.listSessionEvents, backend).handler(async ({ scope, input }) => {
    const page = await backend.sessionEvents.list(scope, input.params.sessionId, {
      limit: pageSize(backend, input.query.limit),
      cursor: input.query.cursor,
    });
    return ok({ items: page.items.map(learning.toSessionEventResponse), nextCursor: page.nextCursor });
  });

export const listBeliefsHandler = (backend: Backend) =>
  httpOperation(learning.listBeliefs, backend).handler(async ({ scope, input }) => {
    const { kind, agent, status, limit, cursor } = input.query;
    const page = await backend.beliefs.list(
      scope,
      { kind, agent, status },
      { limit: pageSize(backend, limit), cursor },
    );
    return ok({ items: page.items.map(learning.toBeliefResponse), nextCursor: page.nextCursor });
  });

export const getBeliefHandler = (backend: Backend) =>
  httpOperation(learning.getBelief, backend).handler(async ({ scope, input }) => {
    const belief = await backend.beliefs.inspect(scope, input.params.id);
    const clamps = await backend.appliedMemory.clampsFor(scope, belief, input.query.project);
    return ok(learning.toInspectedBeliefResponse(belief, clamps), { etag: belief.etag });
  });

export const listBeliefHistoryHandler = (backend: Backend) =>
  httpOperation(learning.beliefHistory, backend).handler(async ({ scope, input }) => {
    const page = await backend.beliefs.history(scope, input.params.id, {
      limit: pageSize(backend, input.query.limit),
      cursor: input.query.cursor,
    });
    return ok({ items: page.items.map(learning.toBeliefResponse), nextCursor: page.nextCursor });
  });

export const correctBeliefHandler = (backend: Backend) =>
  httpOperation(learning.correctBelief, backend).handler(async ({ scope, input }) => {
    const belief = await backend.beliefs.correct(scope, input.params.id, input.ifMatch, input.body);
    return ok(learning.toBeliefResponse(belief), { etag: belief.etag });
  });

export const forgetBeliefHandler = (backend: Backend) =>
  httpOperation(learning.forgetBelief, backend).handler(async ({ scope, input }) => {
    await backend.beliefs.forget(scope, input.params.id, input.ifMatch);
    return noContent();
  });

export const resetBeliefsHandler = (backend: Backend) =>
  httpOperation(learning.resetBeliefs, backend).handler(async ({ scope, input }) => {
    const reset = await backend.beliefs.reset(scope, input.body);
    return ok({ reset });
  });

export const getAppliedMemoryHandler = (backend: Backend) =>
  httpOperation(learning.getAppliedMemory, backend).handler(async ({ scope, input }) => {
    const applied = await backend.appliedMemory.applied(scope, input.query);
    return ok(learning.toAppliedResponse(input.query, applied));
  });
