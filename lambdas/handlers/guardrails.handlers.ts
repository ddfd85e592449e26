import type { Backend } from '../core/backend.ts';
import type { GuardrailSpace } from '../core/guardrails/guardrails-service.ts';
import type { OperationInput } from '../http/api-event.ts';
import * as guardrails from '../http/guardrails.api.ts';
import { httpOperation } from '../http/http-operation.ts';
import type { Operation } from '../http/operation.ts';
import { created, noContent, ok } from '../http/responses.ts';

/** `/v1/projects/{projectId}/guardrails` selects a project's guardrails; `/v1/guardrails` the organisation's. */
const spaceOf = (input: OperationInput<Operation>): GuardrailSpace => ({ project: input.params.projectId });

export const putGuardrailHandler = (backend: Backend) =>
  httpOperation(guardrails.putGuardrail, backend).handler(async ({ scope, input }) => {
    const { guardrail, created: isNew } = await backend.guardrails.put(
      scope,
      spaceOf(input),
      input.params.key,
      input.ifMatch,
      input.body,
    );
    const body = guardrails.toGuardrailResponse(guardrail);
    return isNew
      ? created(body, { etag: guardrail.etag, location: guardrails.guardrailLocation(guardrail), replayed: false })
      : ok(body, { etag: guardrail.etag });
  });

export const getGuardrailHandler = (backend: Backend) =>
  httpOperation(guardrails.getGuardrail, backend).handler(async ({ scope, input }) => {
    const guardrail = await backend.guardrails.get(scope, spaceOf(input), input.params.key);
    return ok(guardrails.toGuardrailResponse(guardrail), { etag: guardrail.etag });
  });

export const listGuardrailsHandler = (backend: Backend) =>
  httpOperation(guardrails.listGuardrails, backend).handler(async ({ scope, input }) => {
    const page = await backend.guardrails.list(scope, spaceOf(input), {
      limit: input.query.limit ?? backend.config.current().listing.defaultPageSize,
      cursor: input.query.cursor,
    });
    return ok({ items: page.items.map(guardrails.toGuardrailResponse), nextCursor: page.nextCursor });
  });

export const deleteGuardrailHandler = (backend: Backend) =>
  httpOperation(guardrails.deleteGuardrail, backend).handler(async ({ scope, input }) => {
    await backend.guardrails.remove(scope, spaceOf(input), input.params.key, input.ifMatch);
    return noContent();
  });
