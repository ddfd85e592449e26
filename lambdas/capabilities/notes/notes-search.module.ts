import { defineModule } from '../../composition/capability-module.ts';
import { NOTE, NoteContent } from './note.schema.ts';
import { noteSearchProjection } from './note.search.ts';
import { notesRetention } from './notes.config.ts';

/** Notes as search sees them, and nothing else of notes: what retrieval's functions build to index and show them. */
export const notesSearchModule = defineModule({
  name: 'notes-search',
  recordKinds: [NOTE],
  config: [notesRetention],
  build: ({ kernel }) => ({
    services: {},
    searchable: [
      noteSearchProjection(
        kernel.recordService({
          kind: NOTE,
          content: NoteContent,
          horizonDays: ({ agent }) => notesRetention.of(kernel.config.current(), agent).noteHorizonDays,
        }),
      ),
    ],
  }),
});
