import type { Embedder } from '../../../kernel/search/embedder.port.ts';
import { KeywordIndex } from '../ranking/keyword-index.ts';
import { ExactNearestNeighbours } from '../ranking/vector-search.ts';
import type { NamespaceIndexParts } from './namespace-index.ts';

/** Fresh keyword and vector legs for one namespace's index, for vectors of `embedder`'s model. */
export const embeddedLegs = (embedder: Pick<Embedder, 'model' | 'dimensions'>): NamespaceIndexParts => {
  const keyword = new KeywordIndex();
  const vectors = new ExactNearestNeighbours({ dimensions: embedder.dimensions });
  return {
    model: embedder.model,
    keyword: {
      add: (id, text) => keyword.upsert({ id, text }),
      remove: (id) => {
        keyword.remove(id);
      },
      search: (query, limit, keep) => keyword.search(query, limit, keep),
    },
    vectors: {
      set: (id, vector) => vectors.upsert(id, vector),
      remove: (id) => {
        vectors.remove(id);
      },
      nearest: (query, limit, keep) => vectors.nearest(query, limit, keep),
    },
  };
};
