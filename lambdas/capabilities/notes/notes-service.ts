import type { Narrowing, Scope } from '../../kernel/identity/scope.ts';
import type { ExpectedRevisions, Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type {
  CreateResult,
  IdempotencyRequest,
  RecordService,
  RecordView,
} from '../../kernel/records/record-service.ts';
import type { CreateNoteInput, NoteContent, UpdateNoteInput } from './note.schema.ts';

export type NoteView = RecordView<NoteContent>;

/**
 * Notes: a principal's private notes (optionally for one agent) and a project team's shared notes. The
 * narrowing says which; the Scope decides whose.
 */
export class NotesService {
  readonly #records: RecordService<NoteContent>;

  constructor(records: RecordService<NoteContent>) {
    this.#records = records;
  }

  create(
    scope: Scope,
    narrowing: Narrowing,
    input: CreateNoteInput,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<NoteContent>> {
    return this.#records.create(scope, narrowing, { text: input.text, tags: input.tags }, idempotency);
  }

  get(scope: Scope, narrowing: Narrowing, id: string): Promise<NoteView> {
    return this.#records.get(scope, narrowing, id);
  }

  list(scope: Scope, narrowing: Narrowing, page: PageRequest): Promise<Page<NoteView>> {
    return this.#records.list(scope, narrowing, page);
  }

  history(scope: Scope, narrowing: Narrowing, id: string, page: PageRequest): Promise<Page<NoteView>> {
    return this.#records.history(scope, narrowing, id, page);
  }

  update(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    expected: ExpectedRevisions | undefined,
    change: UpdateNoteInput,
  ): Promise<NoteView> {
    return this.#records.update(scope, narrowing, id, expected, (current) => ({
      text: change.text ?? current.text,
      tags: change.tags ?? current.tags,
    }));
  }

  remove(scope: Scope, narrowing: Narrowing, id: string, expected: ExpectedRevisions | undefined): Promise<void> {
    return this.#records.remove(scope, narrowing, id, expected);
  }
}
