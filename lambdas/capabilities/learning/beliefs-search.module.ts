import { defineModule } from '../../composition/capability-module.ts';
import { beliefSearchProjections } from './belief.search.ts';
import { BELIEF_KINDS } from './belief-record.ts';
import { learningSettings } from './learning.config.ts';

/**
 * Beliefs as search sees them, and nothing else of learned memory: what retrieval's functions build to index and
 * show beliefs, without the extractors, merges and workflows the learning module brings.
 */
export const beliefsSearchModule = defineModule({
  name: 'beliefs-search',
  recordKinds: Object.values(BELIEF_KINDS),
  config: [learningSettings],
  build: ({ kernel }) => ({
    services: {},
    searchable: beliefSearchProjections({
      clock: kernel.clock,
      learning: (agent) => learningSettings.of(kernel.config.current(), agent),
    }),
  }),
});
