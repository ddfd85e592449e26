import * as z from 'zod';

/**
 * A kind of record, as the capability that stores it declares it: its name (the namespace kind in every
 * storage key) and the traits the shared machinery acts on. The kernel knows no kind by name; each
 * capability module lists its kinds, and the service's set is built from the modules it runs.
 */
export interface RecordKind {
  readonly name: string;
  /**
   * Written once and never revised (short-term events): a record is its single revision, stored as one item
   * with no head projection beside it, listed from its revisions and ended only by expiring.
   */
  readonly journal: boolean;
  /** May live in the organisation's own space: settings every member reads and only admins write. */
  readonly organisationOwned: boolean;
  /** Each committed revision gets its own audit entry; false for kinds audited where what they teach lands. */
  readonly audited: boolean;
  /** Indexed for search: its capability contributes a SearchProjection, and the search index consumer takes its events. */
  readonly searchable: boolean;
}

/** Names end up in storage keys (`…/{kind}/…`): lower-case words joined by hyphens. */
export const RECORD_KIND_NAME = /^[a-z][a-z-]{0,31}$/;

/** Kinds made by `defineRecordKind`: `Scope` builds namespaces of these only, whatever a caller casts. */
const declared = new WeakSet<RecordKind>();

export const defineRecordKind = (definition: {
  readonly name: string;
  readonly journal?: boolean;
  readonly organisationOwned?: boolean;
  readonly audited?: boolean;
  readonly searchable?: boolean;
}): RecordKind => {
  if (!RECORD_KIND_NAME.test(definition.name))
    throw new TypeError(`A record kind name is lower-case words joined by hyphens, not "${definition.name}"`);
  const kind: RecordKind = Object.freeze({
    name: definition.name,
    journal: definition.journal ?? false,
    organisationOwned: definition.organisationOwned ?? false,
    audited: definition.audited ?? true,
    searchable: definition.searchable ?? false,
  });
  declared.add(kind);
  return kind;
};

export const isRecordKind = (candidate: unknown): candidate is RecordKind =>
  typeof candidate === 'object' && candidate !== null && declared.has(candidate as RecordKind);

/** A record kind as data, in the deployment document: what a function that does not run its module knows of it. */
export const RecordKindDescription = z
  .object({
    name: z.string(),
    journal: z.boolean(),
    organisationOwned: z.boolean(),
    audited: z.boolean(),
    searchable: z.boolean(),
  })
  .strict()
  .readonly();
export type RecordKindDescription = z.infer<typeof RecordKindDescription>;

export const describeRecordKind = (kind: RecordKind): RecordKindDescription => ({
  name: kind.name,
  journal: kind.journal,
  organisationOwned: kind.organisationOwned,
  audited: kind.audited,
  searchable: kind.searchable,
});

/**
 * The record kinds one process knows, by name: those of the modules it runs and, for the service's own jobs
 * that meet every kind (the head projection, the audit consumer, the retention sweep), those of the whole
 * deployment. Two declarations of one name must agree.
 */
export class RecordKinds {
  readonly #byName: ReadonlyMap<string, RecordKind>;

  private constructor(byName: ReadonlyMap<string, RecordKind>) {
    this.#byName = byName;
  }

  static of(kinds: Iterable<RecordKind>): RecordKinds {
    const byName = new Map<string, RecordKind>();
    for (const kind of kinds) {
      const known = byName.get(kind.name);
      if (known !== undefined && JSON.stringify(describeRecordKind(known)) !== JSON.stringify(describeRecordKind(kind)))
        throw new TypeError(`The record kind ${kind.name} is declared twice, with different traits`);
      if (known === undefined) byName.set(kind.name, kind);
    }
    return new RecordKinds(byName);
  }

  /** Kinds described as data (the deployment document), merged with kinds declared in code, which must agree. */
  static described(descriptions: readonly RecordKindDescription[], declaredKinds: Iterable<RecordKind>): RecordKinds {
    const own = [...declaredKinds];
    const missing = own.filter((kind) => !descriptions.some((description) => description.name === kind.name));
    if (missing.length > 0)
      throw new TypeError(
        `The deployment document does not describe ${missing.map((kind) => kind.name).join(', ')}: run npm run generate`,
      );
    // Declared kinds first: `of` keeps them, and checks each description of the same name against them.
    return RecordKinds.of([...own, ...descriptions.map(defineRecordKind)]);
  }

  get(name: string): RecordKind | undefined {
    return this.#byName.get(name);
  }

  get names(): readonly string[] {
    return [...this.#byName.keys()];
  }

  [Symbol.iterator](): Iterator<RecordKind> {
    return this.#byName.values();
  }
}
