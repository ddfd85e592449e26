import { defineModule } from '../../composition/capability-module.ts';
import { notesHandlers } from './http/notes.handlers.ts';
import { NOTES_OPERATIONS } from './http/notes.operations.ts';
import { NOTE, NoteContent } from './note.schema.ts';
import { noteSearchProjection } from './note.search.ts';
import { notesRetention } from './notes.config.ts';
import { NotesService } from './notes-service.ts';

/** Notes: a principal's private notes (optionally one agent's) and a project team's shared notes. */
export const notesModule = defineModule({
  name: 'notes',
  recordKinds: [NOTE],
  operations: NOTES_OPERATIONS,
  config: [notesRetention],
  build: ({ kernel, http }) => {
    const records = kernel.recordService({
      kind: NOTE,
      content: NoteContent,
      horizonDays: ({ agent }) => notesRetention.of(kernel.config.current(), agent).noteHorizonDays,
    });
    const notes = new NotesService(records);
    return {
      services: { notes },
      handlers: notesHandlers(notes, http),
      searchable: [noteSearchProjection(records)],
    };
  },
});
