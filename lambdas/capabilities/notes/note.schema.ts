import * as z from 'zod';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';

/** A principal's or a team's note. */
export const NOTE = defineRecordKind({ name: 'note', searchable: true });

export const NOTE_TEXT_MAX_LENGTH = 16_000;
export const NOTE_TAGS_MAX = 20;

const Tag = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a tag is 1-64 characters of A-Z, a-z, 0-9, _, ., : or -');

const NoteText = z
  .string()
  .min(1, 'text must not be empty')
  .max(NOTE_TEXT_MAX_LENGTH, `text is at most ${NOTE_TEXT_MAX_LENGTH} characters`)
  .refine((text) => text.trim().length > 0, 'text must not be blank');

const NoteTags = z
  .array(Tag)
  .max(NOTE_TAGS_MAX, `at most ${NOTE_TAGS_MAX} tags`)
  .refine((tags) => new Set(tags).size === tags.length, 'tags must be unique');

/** A note as stored: a principal's or a team's free text with optional tags. */
export const NoteContent = z.object({ text: NoteText, tags: NoteTags }).strict();
export type NoteContent = z.infer<typeof NoteContent>;

export const CreateNoteInput = z.object({ text: NoteText, tags: NoteTags.default([]) }).strict();
export type CreateNoteInput = z.infer<typeof CreateNoteInput>;

export const UpdateNoteInput = z
  .object({ text: NoteText.optional(), tags: NoteTags.optional() })
  .strict()
  .refine((change) => change.text !== undefined || change.tags !== undefined, 'give text, tags or both');
export type UpdateNoteInput = z.infer<typeof UpdateNoteInput>;
