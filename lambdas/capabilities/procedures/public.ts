/**
 * What other capabilities may use of procedures: the module retrieval builds to index and show procedures.
 * Anything not exported here is the procedures capability's own.
 */
export { proceduresSearchModule } from './procedures-search.module.ts';
