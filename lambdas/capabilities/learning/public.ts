/**
 * What other capabilities may use of learned memory: the module retrieval builds to index and show beliefs.
 * Anything not exported here is learning's own: the boundary rules refuse an import of it from another capability.
 */
export { beliefsSearchModule } from './beliefs-search.module.ts';
