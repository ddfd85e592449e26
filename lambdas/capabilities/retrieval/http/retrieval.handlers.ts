import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { ok } from '../../../http/responses.ts';
import type { SearchService, VerifiedHit } from '../search/search-service.ts';
import * as retrieval from './retrieval.operations.ts';

const hitResponse = async (hit: VerifiedHit) => ({
  id: hit.head.id,
  kind: hit.head.namespace.kind.name,
  score: hit.score,
  features: hit.features,
  ...(hit.graph && { graph: { hops: hit.graph.hops, via: [...hit.graph.via] } }),
  record: (await hit.projection.present(hit.head)) as Record<string, unknown>,
  provenance: {
    kind: hit.head.namespace.kind.name,
    owner: hit.head.namespace.owner,
    revision: hit.head.revision,
    createdAt: hit.head.createdAt,
    updatedAt: hit.head.updatedAt,
    createdBy: hit.head.provenance.createdBy,
    revisedBy: hit.head.provenance.revisedBy,
    sourceEventIds: [...hit.head.provenance.sourceEventIds],
  },
});

/** The retrieval operations' handlers, by export name. */
export const retrievalHandlers = (service: SearchService, http: HttpContext) => ({
  search: httpOperation(retrieval.search, http).handler(async ({ scope, input }) => {
    const outcome = await service.search(scope, input.body);
    return ok({
      hits: await Promise.all(outcome.hits.map(hitResponse)),
      strategy: outcome.strategy,
      limitations: [...outcome.limitations],
    });
  }),
  assembleContext: httpOperation(retrieval.assembleContext, http).handler(async ({ scope, input }) => {
    const context = await service.context(scope, input.body);
    return ok({
      items: context.items.map((item) => ({ ...item, source: { ...item.source } })),
      tokens: context.tokens,
      maxTokens: context.maxTokens,
      strategy: context.strategy,
      limitations: [...context.limitations],
    });
  }),
});
