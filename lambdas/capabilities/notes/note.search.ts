import type { RecordService } from '../../kernel/records/record-service.ts';
import type { SearchProjection } from '../../kernel/search/search-projection.ts';
import { toNoteResponse } from './http/notes.operations.ts';
import { NOTE, NoteContent } from './note.schema.ts';

/** How search indexes a note (its text and tags) and shows one (as `GET /v1/notes/{id}` does). */
export const noteSearchProjection = (records: Pick<RecordService<NoteContent>, 'view'>): SearchProjection => ({
  kind: NOTE,
  fields: (revision) => {
    const content = NoteContent.safeParse(revision.content);
    return content.success ? { text: content.data.text, tags: content.data.tags } : undefined;
  },
  present: (revision) => toNoteResponse(records.view(revision)),
});
