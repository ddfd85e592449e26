import type { OperationInput } from '../../../http/api-event.ts';
import { etagOf, expectedRevisionsOf } from '../../../http/entity-tags.ts';
import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { issuedCursor } from '../../../http/listing-cursors.ts';
import type { Operation } from '../../../http/operation.ts';
import { pageRequestOf } from '../../../http/page-size.ts';
import { created, noContent, ok } from '../../../http/responses.ts';
import type { GuardrailSpace, GuardrailsService } from '../guardrails-service.ts';
import * as guardrails from './guardrails.operations.ts';

/** `/v1/projects/{projectId}/guardrails` selects a project's guardrails; `/v1/guardrails` the organisation's. */
const spaceOf = (input: OperationInput<Operation>): GuardrailSpace => ({ project: input.params.projectId });

/** The guardrails operations' handlers, by export name. */
export const guardrailsHandlers = (service: GuardrailsService, http: HttpContext) => ({
  putGuardrail: httpOperation(guardrails.putGuardrail, http).handler(async ({ scope, input }) => {
    const { guardrail, created: isNew } = await service.put(
      scope,
      spaceOf(input),
      input.params.key,
      expectedRevisionsOf(input.ifMatch, input.params.key),
      input.body,
    );
    const body = guardrails.toGuardrailResponse(guardrail);
    const etag = etagOf(guardrail.id, guardrail.revision);
    return isNew
      ? created(body, { etag, location: guardrails.guardrailLocation(guardrail), replayed: false })
      : ok(body, { etag });
  }),

  getGuardrail: httpOperation(guardrails.getGuardrail, http).handler(async ({ scope, input }) => {
    const guardrail = await service.get(scope, spaceOf(input), input.params.key);
    return ok(guardrails.toGuardrailResponse(guardrail), { etag: etagOf(guardrail.id, guardrail.revision) });
  }),

  listGuardrails: httpOperation(guardrails.listGuardrails, http).handler(async ({ scope, input }) => {
    const page = await service.list(scope, spaceOf(input), pageRequestOf(http, input.query));
    return ok({
      items: page.items.map(guardrails.toGuardrailResponse),
      nextCursor: issuedCursor(input, page.nextCursor),
    });
  }),

  deleteGuardrail: httpOperation(guardrails.deleteGuardrail, http).handler(async ({ scope, input }) => {
    const { key } = input.params;
    await service.remove(scope, spaceOf(input), key, expectedRevisionsOf(input.ifMatch, key));
    return noContent();
  }),
});
