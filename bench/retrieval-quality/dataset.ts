/**
 * The project's labelled retrieval set, generated from a seed (see README.md): work notes and beliefs about an
 * invented organisation, multi-session conversations, and everyday background notes, with queries in five
 * categories and graded relevance. The labelled part (its memories and queries) depends only on the seed;
 * `memories` only adds background around it.
 */
import { BACKGROUND_NOTES, backgroundSlots } from './background-notes.ts';
import { writeConversations } from './conversations.ts';
import {
  FACT_TEMPLATES,
  type FactContext,
  type FactTemplate,
  type Slots,
  type Subject,
  type SubjectKind,
  subjectSlots,
  subjectsOf,
} from './fact-templates.ts';
import { phrase, type Wording } from './lexicon.ts';
import {
  type DraftQuery,
  dayOf2026,
  daysLater,
  type Grade,
  instantBetween,
  MemoryBook,
  SET_END,
} from './memory-book.ts';
import { RandomSource } from './random-source.ts';
import { type Person, type Project, type Service, slugOf, type Team, WorldBuilder } from './world.ts';

export interface Memory {
  id: string;
  kind: 'note' | 'belief';
  text: string;
  tags: string[];
  /** A belief's rule key, such as `response.language`. */
  ruleKey?: string;
  /** A conversation turn's session (`c07-s3`: conversation 7, session 3) and its turn number in it. */
  session?: string;
  turn?: number;
  /** ISO 8601, UTC. */
  createdAt: string;
}

export interface RelevantMemory {
  id: string;
  /** 2: answers the query; 1: related or partial (an older, superseded statement; an acknowledgement). */
  grade: 1 | 2;
}

export interface LabelledQuery {
  id: string;
  text: string;
  category: string;
  relevant: RelevantMemory[];
  /** For a conversational query: the session it is asked in, and the turn it would be (after the stored ones). */
  session?: string;
  turn?: number;
}

export interface RetrievalSet {
  memories: Memory[];
  queries: LabelledQuery[];
}

export interface RetrievalSetOptions {
  seed?: number;
  /** Total memories; the labelled part needs about 3,000 and the rest is background. */
  memories?: number;
}

export const DEFAULT_SEED = 12;
export const DEFAULT_MEMORY_COUNT = 6000;

export const QUERY_CATEGORIES = ['exact-term', 'paraphrase', 'conversational', 'temporal', 'entity-relation'] as const;
export type QueryCategory = (typeof QUERY_CATEGORIES)[number];

const CORE_SIZES = { people: 48, projects: 30, services: 30 };
const CONVERSATIONS = 26;
const QUERIES_PER_CATEGORY = { 'exact-term': 50, paraphrase: 60, temporal: 40 } as const;
const QUERIES_PER_RELATION = 8;
/** Share of facts with an update that are stated twice, older and newer. */
const SUPERSEDED_SHARE = 0.35;
/** Share of notes written again with small changes. */
const DUPLICATE_SHARE = 0.12;
/** Share of facts with a distractor, for facts a query asks about and for the rest. */
const DISTRACTOR_SHARE = { queried: 0.7, other: 0.2 };
const DUPLICATE_PREFIXES = ['Reminder: ', 'Note to self: ', 'FYI ', 'Again: ', 'Re-noting: ', 'To remember: '];

interface WrittenFact {
  readonly template: FactTemplate;
  readonly subject: Subject;
  /** The current value's slots (the newer one when superseded). */
  readonly slots: Slots;
  readonly wording: Wording;
  /** Memories stating the current value; memories stating the older one. */
  readonly current: number[];
  readonly superseded: number[];
}

const capitalised = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Writes facts of one subject into the book. */
class FactWriter {
  readonly facts: WrittenFact[] = [];

  readonly #book: MemoryBook;
  readonly #context: FactContext;

  constructor(book: MemoryBook, context: FactContext) {
    this.#book = book;
    this.#context = context;
  }

  get #random(): RandomSource {
    return this.#context.random;
  }

  writeSubject(kind: SubjectKind, subject: Subject): void {
    for (const template of FACT_TEMPLATES) {
      if (template.subject !== kind) continue;
      if (template.coverage !== undefined && !this.#random.chance(template.coverage)) continue;
      const seen = new Set<string>();
      for (let index = 0; index < (template.perSubject ?? 1); index += 1) {
        const slots = this.#distinctSlots(template, subject, seen);
        if (slots) this.#writeFact(template, subject, { ...subjectSlots(kind, subject), ...slots });
      }
    }
  }

  #distinctSlots(template: FactTemplate, subject: Subject, seen: Set<string>): Slots | undefined {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const slots = template.slots(subject, this.#context);
      if (!slots) return undefined;
      const key = template.distinctBy ? (slots[template.distinctBy] ?? '') : String(attempt);
      if (seen.has(key)) continue;
      seen.add(key);
      return slots;
    }
    return undefined;
  }

  #writeFact(template: FactTemplate, subject: Subject, slots: Slots): void {
    const wording: Wording = new Map();
    const current: number[] = [];
    const superseded: number[] = [];
    const history =
      template.updates && this.#random.chance(SUPERSEDED_SHARE) ? this.#history(template, subject, slots) : undefined;
    if (history) {
      const olderAt = instantBetween(this.#random, dayOf2026(1, 5), dayOf2026(5, 31));
      // What a principal said before their belief changed is kept as a note.
      superseded.push(
        this.#add(
          'note',
          undefined,
          template,
          history.older,
          this.#say(template.statements, history.older, wording),
          olderAt,
        ),
      );
      const newerAt = instantBetween(this.#random, dayOf2026(6, 15), dayOf2026(11, 20));
      current.push(
        this.#add(
          template.kind,
          template.ruleKey,
          template,
          history.newer,
          this.#say(template.updates ?? [], history.newer, wording),
          newerAt,
        ),
      );
    } else {
      const at = instantBetween(this.#random, dayOf2026(1, 5), dayOf2026(11, 20));
      current.push(
        this.#add(template.kind, template.ruleKey, template, slots, this.#say(template.statements, slots, wording), at),
      );
    }
    if (template.kind === 'note' && this.#random.chance(DUPLICATE_SHARE)) {
      const ofOlder = history !== undefined && this.#random.chance(0.5);
      const list = ofOlder ? superseded : current;
      const original = this.#book.memories[list[0] as number];
      const [templates, restated]: [readonly string[], Slots] = !history
        ? [template.statements, slots]
        : ofOlder
          ? [template.statements, history.older]
          : [template.updates ?? [], history.newer];
      if (original) {
        const text = this.#restate(templates, restated, wording, original.text);
        const at = Math.min(SET_END, daysLater(original.createdAt, this.#random.int(1, 40)));
        list.push(this.#book.add({ ...original, text, createdAt: at }));
      }
    }
    this.facts.push({ template, subject, slots: history?.newer ?? slots, wording, current, superseded });
  }

  /**
   * A fact's past: an older value (every slot in `changes` drawn again, and different) and the newer
   * statement's slots, the current ones with the old values as `oldX`.
   */
  #history(template: FactTemplate, subject: Subject, current: Slots): { older: Slots; newer: Slots } | undefined {
    const changes = template.changes ?? [];
    if (changes.length === 0) return undefined;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const draw = template.slots(subject, this.#context, current);
      if (!draw || changes.some((name) => draw[name] === current[name])) continue;
      const older: Slots = { ...current };
      const newer: Slots = { ...current };
      for (const name of changes) {
        older[name] = draw[name] ?? '';
        newer[`old${capitalised(name)}`] = draw[name] ?? '';
      }
      return { older, newer };
    }
    return undefined;
  }

  #say(templates: readonly string[], slots: Slots, wording: Wording): string {
    return phrase(this.#random.pick(templates), slots, 'memory', wording, this.#random.next);
  }

  #restate(templates: readonly string[], slots: Slots, wording: Wording, original: string): string {
    const text = phrase(this.#random.pick(templates), slots, 'restate', wording, this.#random.next);
    const prefix = this.#random.chance(0.5) || text === original ? this.#random.pick(DUPLICATE_PREFIXES) : '';
    return prefix ? `${prefix}${text}` : text;
  }

  #add(
    kind: 'note' | 'belief',
    ruleKey: string | undefined,
    template: FactTemplate,
    slots: Slots,
    text: string,
    createdAt: number,
  ): number {
    return this.#book.add({ kind, text, tags: template.tags(slots), ...(ruleKey ? { ruleKey } : {}), createdAt });
  }

  /** A note that shares the fact's words but does not state it. */
  writeDistractor(fact: WrittenFact): void {
    const templates = fact.template.distractors;
    if (!templates || templates.length === 0) return;
    const text = phrase(this.#random.pick(templates), fact.slots, 'memory', new Map(), this.#random.next);
    // The fact's topic tags, and its entity tags only for the entities the distractor names.
    const named = slugOf(text);
    const tags = fact.template.tags(fact.slots).filter((tag) => {
      const [, slug] = tag.split(':');
      return slug === undefined || named.includes(slug);
    });
    this.#book.add({
      kind: 'note',
      text,
      tags,
      createdAt: instantBetween(this.#random, dayOf2026(1, 5), dayOf2026(11, 25)),
    });
  }
}

/** Picks up to `count` items, spreading the picks over the groups in turn (so every attribute is asked about). */
const stratifiedSample = <T>(
  items: readonly T[],
  groupOf: (item: T) => string,
  count: number,
  random: RandomSource,
): T[] => {
  const groups = new Map<string, T[]>();
  for (const item of random.shuffle(items)) {
    const key = groupOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const queues = random.shuffle([...groups.values()]);
  const picked: T[] = [];
  while (picked.length < count && queues.some((queue) => queue.length > 0)) {
    for (const queue of queues) {
      const item = queue.pop();
      if (item !== undefined && picked.length < count) picked.push(item);
    }
  }
  return picked;
};

const graded = (keys: readonly number[], grade: Grade) => keys.map((key) => ({ key, grade }));

/** Entity-relation queries: two facts joined by a shared entity (a team, a person) answer them together. */
const relationQueries = (facts: readonly WrittenFact[], random: RandomSource): DraftQuery[] => {
  const byAttribute = (attribute: string) =>
    new Map(
      facts
        .filter((fact) => fact.template.attribute === attribute && fact.superseded.length === 0)
        .map((fact) => [fact.subject, fact] as const),
    );
  const owner = byAttribute('service.owner');
  const teamLead = byAttribute('team.lead');
  const projectLead = byAttribute('project.lead');
  const timezone = byAttribute('timezone');
  const location = byAttribute('location');
  const manager = byAttribute('person.manager');
  const projectTeam = byAttribute('project.team');
  const channel = byAttribute('team.channel');
  const errors = facts.filter((fact) => fact.template.attribute === 'service.error');

  type Pair = readonly [WrittenFact, WrittenFact];
  const relations: readonly { pairs: Pair[]; templates: readonly string[] }[] = [
    {
      pairs: [...owner.values()].flatMap((fact) => {
        const lead = teamLead.get((fact.subject as Service).team);
        return lead ? [[fact, lead] as const] : [];
      }),
      templates: ['Who {lead.s} the {team} that {own.s} {$service}?'],
    },
    {
      pairs: [...projectLead.values()].flatMap((fact) => {
        const zone = timezone.get((fact.subject as Project).lead);
        return zone ? [[fact, zone] as const] : [];
      }),
      templates: ['What {timezone} is the {techLead} for {$project} in?'],
    },
    {
      pairs: errors.flatMap((fact) => {
        const owned = owner.get(fact.subject);
        return owned ? [[fact, owned] as const] : [];
      }),
      templates: ['Which {team} {own.s} the service that returns {$code}?'],
    },
    {
      pairs: [...manager.values()].flatMap((fact) => {
        const place = [...location.values()].find((other) => (other.subject as Person).name === fact.slots.manager);
        return place ? [[fact, place] as const] : [];
      }),
      templates: ["Which city is {$person}'s {manager} based in?"],
    },
    {
      pairs: [...projectTeam.values()].flatMap((fact) => {
        const room = channel.get((fact.subject as Project).team as Team);
        return room ? [[fact, room] as const] : [];
      }),
      templates: ['Which Slack {channel} does the {team} behind {$project} use?'],
    },
  ];

  return relations.flatMap(({ pairs, templates }) =>
    random.sample(pairs, Math.min(QUERIES_PER_RELATION, pairs.length)).map(([first, second]) => {
      const wording: Wording = new Map([...second.wording, ...first.wording]);
      return {
        text: phrase(random.pick(templates), { ...second.slots, ...first.slots }, 'same', wording, random.next),
        category: 'entity-relation',
        relevant: [...graded(first.current, 2), ...graded(second.current, 2)],
      };
    }),
  );
};

/** Exact-term, paraphrase and temporal queries, each about a different fact. */
const factQueries = (
  facts: readonly WrittenFact[],
  random: RandomSource,
): { queries: DraftQuery[]; asked: Set<WrittenFact> } => {
  const asked = new Set<WrittenFact>();
  const queries: DraftQuery[] = [];
  const ask = (
    category: QueryCategory,
    eligible: (fact: WrittenFact) => readonly string[] | undefined,
    mode: 'same' | 'other',
    count: number,
  ) => {
    const candidates = facts.filter((fact) => !asked.has(fact) && (eligible(fact)?.length ?? 0) > 0);
    for (const fact of stratifiedSample(candidates, (item) => item.template.attribute, count, random)) {
      asked.add(fact);
      const template = random.pick(eligible(fact) ?? []);
      queries.push({
        text: phrase(template, fact.slots, mode, fact.wording, random.next),
        category,
        relevant: [...graded(fact.current, 2), ...graded(fact.superseded, 1)],
      });
    }
  };
  ask(
    'temporal',
    (fact) => (fact.superseded.length > 0 ? fact.template.latest : undefined),
    'same',
    QUERIES_PER_CATEGORY.temporal,
  );
  const settled = (fact: WrittenFact) => fact.superseded.length === 0;
  ask(
    'exact-term',
    (fact) => (settled(fact) && fact.template.identifier ? fact.template.direct : undefined),
    'same',
    QUERIES_PER_CATEGORY['exact-term'],
  );
  ask(
    'paraphrase',
    (fact) => (settled(fact) ? fact.template.paraphrase : undefined),
    'other',
    QUERIES_PER_CATEGORY.paraphrase,
  );
  return { queries, asked };
};

const isoOf = (instant: number): string => new Date(instant).toISOString();

/**
 * Builds the set. Deterministic: the same options give the same memories, ids and queries. Throws a
 * RangeError when `memories` is below what the labelled part needs.
 */
export const buildRetrievalSet = (options: RetrievalSetOptions = {}): RetrievalSet => {
  const seed = options.seed ?? DEFAULT_SEED;
  const target = options.memories ?? DEFAULT_MEMORY_COUNT;
  // Separate streams, so the background's size never changes the labelled part.
  const coreRandom = new RandomSource(seed);
  const conversationRandom = new RandomSource(seed ^ 0x5bd1e995);
  const backgroundRandom = new RandomSource(seed ^ 0x27d4eb2f);
  const shuffleRandom = new RandomSource(seed ^ 0x165667b1);

  const builder = new WorldBuilder(coreRandom);
  const world = builder.buildCore(CORE_SIZES);
  const handedOut = new Map<string, Set<string>>();
  const unique = (kind: string, make: () => string): string => {
    const used = handedOut.get(kind) ?? new Set<string>();
    handedOut.set(kind, used);
    for (let attempt = 0; attempt < 1000; attempt += 1) {
      const value = make();
      if (!used.has(value)) {
        used.add(value);
        return value;
      }
    }
    throw new Error(`Ran out of unique ${kind} values`);
  };

  const book = new MemoryBook();
  const writer = new FactWriter(book, { random: coreRandom, world, unique });
  for (const kind of ['person', 'team', 'project', 'service'] as const) {
    for (const subject of subjectsOf(kind, world)) writer.writeSubject(kind, subject);
  }
  const { queries: askedAboutFacts, asked } = factQueries(writer.facts, coreRandom);
  const drafts = [...askedAboutFacts, ...relationQueries(writer.facts, coreRandom)];
  for (const fact of writer.facts) {
    if (coreRandom.chance(asked.has(fact) ? DISTRACTOR_SHARE.queried : DISTRACTOR_SHARE.other))
      writer.writeDistractor(fact);
  }
  drafts.push(...writeConversations(book, conversationRandom, CONVERSATIONS));

  const labelled = book.memories.length;
  if (target < labelled) {
    throw new RangeError(`The labelled part alone holds ${labelled} memories; ask for at least that many`);
  }
  fillBackground(book, builder, { random: backgroundRandom, world, unique }, target);

  const order = shuffleRandom.shuffle(book.memories.map((_, key) => key));
  const idOf = new Map<number, string>();
  const memories: Memory[] = order.map((key, position) => {
    const draft = book.memories[key];
    if (!draft) throw new Error(`No memory ${key}`);
    const id = `m${String(position + 1).padStart(5, '0')}`;
    idOf.set(key, id);
    return {
      id,
      kind: draft.kind,
      text: draft.text,
      tags: [...draft.tags],
      ...(draft.ruleKey ? { ruleKey: draft.ruleKey } : {}),
      ...(draft.session ? { session: draft.session, turn: draft.turn } : {}),
      createdAt: isoOf(draft.createdAt),
    };
  });

  const counters = new Map<string, number>();
  const queries: LabelledQuery[] = QUERY_CATEGORIES.flatMap((category) =>
    drafts
      .filter((draft) => draft.category === category)
      .map((draft) => {
        const number = (counters.get(category) ?? 0) + 1;
        counters.set(category, number);
        const relevant = draft.relevant
          .map(({ key, grade }) => ({ id: idOf.get(key) ?? '', grade }))
          .sort((a, b) => b.grade - a.grade || a.id.localeCompare(b.id));
        return {
          id: `${category}-${String(number).padStart(3, '0')}`,
          text: draft.text,
          category,
          relevant,
          ...(draft.session ? { session: draft.session, turn: draft.turn } : {}),
        };
      }),
  );
  return { memories, queries };
};

/**
 * Grows the organisation (new people, projects and services, written like the labelled ones but never asked
 * about) for half of the background, and fills the rest with everyday notes, up to exactly `target`.
 */
const fillBackground = (book: MemoryBook, builder: WorldBuilder, context: FactContext, target: number): void => {
  const { random, world } = context;
  const writer = new FactWriter(book, context);
  const entityTarget = book.memories.length + Math.floor((target - book.memories.length) / 2);
  let step = 0;
  while (target - book.memories.length > 60 && book.memories.length < entityTarget) {
    step += 1;
    if (step % 6 === 0) writer.writeSubject('project', builder.addProject());
    else if (step % 6 === 3) writer.writeSubject('service', builder.addService());
    else writer.writeSubject('person', builder.addPerson());
  }
  while (book.memories.length < target) {
    const slots = backgroundSlots(world, random);
    const text = phrase(random.pick(BACKGROUND_NOTES), slots, 'memory', new Map(), random.next);
    book.add({ kind: 'note', text, tags: [], createdAt: instantBetween(random, dayOf2026(1, 2), dayOf2026(11, 28)) });
  }
};
