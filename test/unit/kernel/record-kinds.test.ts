import { describe, expect, it } from 'vitest';
import {
  defineRecordKind,
  describeRecordKind,
  isRecordKind,
  RecordKindDescription,
  RecordKinds,
} from '../../../lambdas/kernel/namespaces/record-kind.ts';

describe('Function: defineRecordKind', () => {
  it('declares a long-term, personal, audited kind unless told otherwise', () => {
    // Act
    const kind = defineRecordKind({ name: 'note' });

    // Assess
    expect(kind).toEqual({ name: 'note', journal: false, organisationOwned: false, audited: true, searchable: false });
    expect(Object.isFrozen(kind)).toBe(true);
    expect(isRecordKind(kind)).toBe(true);
  });

  it('keeps the traits it is given', () => {
    const kind = defineRecordKind({
      name: 'session-events',
      journal: true,
      organisationOwned: true,
      audited: false,
      searchable: true,
    });

    expect(kind).toEqual({
      name: 'session-events',
      journal: true,
      organisationOwned: true,
      audited: false,
      searchable: true,
    });
  });

  // A kind's name is a segment of every storage key of its records: nothing else may pass.
  it.each(['Note', 'xNote', 'note/x', 'note x', '-note', 'note_s', '', 'n'.repeat(33), '../note'])(
    'refuses the name %j',
    (name) => {
      expect(() => defineRecordKind({ name })).toThrow(/lower-case words joined by hyphens/);
    },
  );

  it('accepts a name of one letter and one of 32 characters', () => {
    expect(defineRecordKind({ name: 'a' }).name).toBe('a');
    expect(defineRecordKind({ name: `a${'-'.repeat(31)}` }).name).toHaveLength(32);
  });
});

describe('Function: isRecordKind', () => {
  it('knows only what defineRecordKind made, not a look-alike or anything else', () => {
    const kind = defineRecordKind({ name: 'note' });

    expect(isRecordKind(kind)).toBe(true);
    for (const candidate of [{ ...kind }, 'note', null, undefined, 1])
      expect(isRecordKind(candidate), String(candidate)).toBe(false);
  });
});

describe('Function: describeRecordKind', () => {
  it('describes a kind as data that the description schema reads back', () => {
    const kind = defineRecordKind({ name: 'guardrail', organisationOwned: true });

    const description = describeRecordKind(kind);

    expect(description).toEqual({
      name: 'guardrail',
      journal: false,
      organisationOwned: true,
      audited: true,
      searchable: false,
    });
    expect(RecordKindDescription.parse(description)).toEqual(description);
    expect(() => RecordKindDescription.parse({ ...description, secret: true })).toThrow();
    expect(() => RecordKindDescription.parse({ name: 'guardrail' })).toThrow();
  });
});

describe('Class: RecordKinds', () => {
  describe('Method: of', () => {
    it('knows each kind by its name, and lists each name once', () => {
      // Prepare
      const note = defineRecordKind({ name: 'note' });
      const again = defineRecordKind({ name: 'note' });
      const events = defineRecordKind({ name: 'session-events', journal: true });

      // Act
      const kinds = RecordKinds.of([note, events, again]);

      // Assess: the first declaration of a name is the one kept
      expect(kinds.get('note')).toBe(note);
      expect(kinds.get('session-events')).toBe(events);
      expect(kinds.get('profile')).toBeUndefined();
      expect(kinds.names).toEqual(['note', 'session-events']);
      expect([...kinds]).toEqual([note, events]);
    });

    it('refuses two declarations of one name with different traits', () => {
      const note = defineRecordKind({ name: 'note' });
      const unaudited = defineRecordKind({ name: 'note', audited: false });

      expect(() => RecordKinds.of([note, unaudited])).toThrow(/note is declared twice, with different traits/);
    });
  });

  describe('Method: described', () => {
    it('merges the kinds the deployment document describes with those declared in code, keeping the declared', () => {
      // Prepare
      const note = defineRecordKind({ name: 'note' });
      const descriptions = [
        describeRecordKind(note),
        { name: 'profile', journal: false, organisationOwned: false, audited: true, searchable: true },
      ];

      // Act
      const kinds = RecordKinds.described(descriptions, [note]);

      // Assess
      expect(kinds.names).toEqual(['note', 'profile']);
      expect(kinds.get('note')).toBe(note);
      expect(isRecordKind(kinds.get('profile'))).toBe(true);
      expect(kinds.get('profile')?.audited).toBe(true);
      expect(kinds.get('profile')?.searchable).toBe(true);
    });

    it('refuses a document that leaves out a kind declared in code', () => {
      const note = defineRecordKind({ name: 'note' });
      const profile = defineRecordKind({ name: 'profile' });

      expect(() => RecordKinds.described([describeRecordKind(note)], [note, profile])).toThrow(
        /does not describe profile: run npm run generate/,
      );
      expect(() => RecordKinds.described([], [note, profile])).toThrow(/does not describe note, profile:/);
    });

    it('refuses a document whose description disagrees with the declaration', () => {
      const note = defineRecordKind({ name: 'note' });

      expect(() => RecordKinds.described([{ ...describeRecordKind(note), journal: true }], [note])).toThrow(
        /declared twice/,
      );
    });
  });
});
