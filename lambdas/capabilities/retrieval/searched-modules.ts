/**
 * What retrieval's functions build in AWS to index and show the searchable kinds: each capability's search module
 * (its projection alone, none of its operations or workflows). An architecture test holds this list to every
 * searchable kind of the service's capabilities.
 */
import { beliefsSearchModule } from '../learning/public.ts';
import { notesSearchModule } from '../notes/public.ts';
import { proceduresSearchModule } from '../procedures/public.ts';

export const SEARCHED_MODULES = [notesSearchModule, beliefsSearchModule, proceduresSearchModule] as const;
