/**
 * What other capabilities may use of notes: the module retrieval builds to index and show notes. Anything not
 * exported here is notes' own: the boundary rules refuse an import of it from another capability.
 */
export { notesSearchModule } from './notes-search.module.ts';
