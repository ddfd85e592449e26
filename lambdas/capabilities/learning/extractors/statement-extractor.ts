import { normalizeForScreening } from '../../../kernel/protection/text-normalization.ts';
import {
  type CandidateRule,
  RULE_STRING_MAX_LENGTH,
  type RuleKey,
  type RuleKind,
  type RuleValue,
  sameValue,
  valueIdentity,
} from '../belief.schema.ts';
import type { StatementEvent } from '../session-event.schema.ts';
import type { SynchronousExtractor } from './candidate-extractor.port.ts';

/*
 * A statement is the principal saying something about themselves. A structured one (`key` and `value`) is a
 * declarative fact as given, and its text is not read. A free-text one is read sentence by sentence against
 * the patterns below, and only clear declarative sentences yield anything: precision over recall, because a
 * declarative fact is applied on a single statement. A sentence that matches no pattern yields nothing.
 *
 * The patterns, each a whole sentence in any case ("a / b": either; "[x]": optional; "I [would / 'd]" is "I",
 * "I would" or "I'd"), with an example and the value it yields. Every candidate is declarative and single-valued.
 *
 *   1. timezone (profile)
 *      confirm  my time[ ]zone is Z
 *               "My timezone is Europe/Berlin." -> "Europe/Berlin"
 *      refute   my time[ ]zone is not / no longer Z
 *               "My time zone is no longer CET." -> "CET"
 *   2. location (profile)
 *      confirm  I live in P / I am based in P / I'm based in P
 *               "I'm based in Lisbon, Portugal." -> "Lisbon, Portugal"
 *      refute   I no longer / don't / do not live in P [any more]
 *               "I no longer live in Berlin." -> "Berlin"
 *      refute   I am / I'm not / no longer based in P [any more]
 *               "I'm not based in Paris." -> "Paris"
 *   3. role (profile)
 *      confirm  my role is [a / an / the] R / I work as a / an R
 *               "I work as a data engineer at X." -> "data engineer"
 *      refute   my role is not / no longer [a / an / the] R
 *               "My role is no longer Team Lead." -> "Team Lead"
 *      refute   I no longer / don't / do not work as a / an R [any more]
 *               "I no longer work as a tester." -> "tester"
 *   4. preferred_name (profile)
 *      confirm  [please] call me N
 *               "Please call me Sam." -> "Sam"
 *      refute   [please] don't / do not call me N
 *               "Don't call me Samuel." -> "Samuel"
 *   5. response.language (preference)
 *      confirm  my preferred language is L
 *               "My preferred language is German." -> "german"
 *      confirm  [please] answer / reply / respond / write [to me] in L
 *               "Please answer in French." -> "french"
 *      refute   my preferred language is not / no longer L
 *               "My preferred language is not English." -> "english"
 *      refute   [please] don't / do not answer / reply / respond / write [to me] in L
 *               "Please don't reply in Dutch." -> "dutch"
 *   6. response.length (preference)
 *      confirm  I [would / 'd] prefer / like / want S answers / responses / replies
 *               "I'd prefer concise answers." -> "short"
 *      refute   I don't / do not prefer / like / want S answers / responses / replies
 *               "I don't want long responses." -> "long"
 *   7. response.tone (preference)
 *      confirm  I [would / 'd] prefer / like / want [a / an] T tone
 *               "I prefer a formal tone." -> "formal"
 *      refute   I don't / do not prefer / like / want [a / an] T tone
 *               "I don't prefer formal tone." -> "formal"
 *   8. response.format (preference)
 *      confirm  I [would / 'd] prefer / like / want [answers / responses / replies in / as] F
 *               "I prefer answers in bullet points." -> "bullets"
 *      refute   I don't / do not prefer / like / want [answers / responses / replies in / as] F
 *               "I don't want bullet points." -> "bullets"
 *
 * What a value may be, or the sentence yields nothing:
 * - Z, a time zone: an IANA name (`Europe/Berlin`, `America/New_York`), `UTC`/`GMT` with an optional offset
 *   (`utc+2` -> `UTC+2`), an upper-case abbreviation ending in T (`CET`, `PST`, `AEST`) or a capitalised name
 *   ending in "Time" (`Pacific Time`, `Central European Time`). Kept as written, offsets upper-cased.
 * - P, a place, and N, a name: proper names, 1-6 and 1-3 words, every word capitalised except joining words
 *   (of, the, and, de, van, von, …; "the" may lead: "the Netherlands"). So "I live in a small flat",
 *   "I live in Berlin with my family" and "call me later" yield nothing. Kept as written.
 * - R, a job title: 1-4 words of letters, cut at "at", "for", "in", "with" or "on" (the employer or team that
 *   follows is not the role), not starting with a word that opens a clause ("my role is to review code").
 *   Kept as written.
 * - L, a natural language from `LANGUAGES` (so "answer in Markdown" and "my preferred language is TypeScript"
 *   yield nothing), lower-cased.
 * - S, a length: short, shorter, concise, brief -> "short"; long, longer, detailed, in-depth, thorough ->
 *   "long". T, a tone: formal -> "formal"; casual, informal -> "casual". F, a format: bullet points, bulleted
 *   lists, bullet lists -> "bullets"; prose -> "prose".
 *
 * Negations never confirm: every pattern is anchored at the start of the sentence, so "I don't prefer a
 * formal tone" or "I no longer live in Berlin" cannot match an affirmative row; "is not" / "is no longer" are
 * excluded from the affirmative rows that end in "is". The negated rows above are unambiguous, so they
 * refute the value; any other negation ("I never said I live in Berlin") matches nothing. Questions yield
 * nothing, nor do sentences longer than `MAX_SENTENCE_LENGTH`.
 *
 * Within one statement, a key keeps only what the sentences agree on: two confirmed values of the key, or a
 * value both confirmed and refuted, yield nothing for it; a confirmed value drops the refutations of other
 * values ("I no longer live in Berlin. I live in Lisbon."), which the newer declaration supersedes anyway,
 * and which would otherwise outrank it in the maturation gate (a retraction wins a tie).
 *
 * The text is read after folding copy-and-paste look-alikes (curly quotes, Unicode spaces and dashes, full-width
 * letters) and runs of white space. Sentences end at "." followed by a space or the end, at "!", "?", ";" and
 * at line breaks; a period after a title or "St" does not end one ("call me Dr. Ng", "I live in St. Louis"),
 * and a leading list marker ("- ", "* ") is dropped. Every pattern starts on a literal at the start of a short
 * sentence and has no nested quantifier over overlapping characters, so the work is linear in the text. The
 * text is only matched, never acted on.
 */

/** A clear declarative sentence is short. Longer ones are not matched, which also bounds every match. */
export const MAX_SENTENCE_LENGTH = 300;

// A run of periods is matched from its first period only, so a long run is not rescanned from every one.
const SENTENCE_END = /(?<!\.|\b(?:dr|mr|mrs|ms|mx|prof|st|mt|jr|sr))\.+(?=\s|$)|[!?]+|[;\r\n]+/giu;
const SPACES = /\s+/gu;
const APOSTROPHES = /[\u2018\u2019\u02bc]/gu;
const DOUBLE_QUOTES = /[\u201c\u201d]/gu;
const LIST_MARKER = /^[-*\u2022] /u;

interface Sentence {
  readonly text: string;
  readonly question: boolean;
}

const sentencesOf = (text: string): Sentence[] => {
  const folded = normalizeForScreening(text).replace(APOSTROPHES, "'").replace(DOUBLE_QUOTES, '"');
  const sentences: Sentence[] = [];
  let start = 0;
  for (const end of folded.matchAll(SENTENCE_END)) {
    sentences.push({ text: folded.slice(start, end.index), question: end[0].includes('?') });
    start = end.index + end[0].length;
  }
  sentences.push({ text: folded.slice(start), question: false });
  return sentences.map(({ text: sentence, question }) => ({
    text: sentence.replace(SPACES, ' ').trim().replace(LIST_MARKER, ''),
    question,
  }));
};

const SURROUNDING_QUOTES = /^["']+|["']+$/g;
const TRAILING_PUNCTUATION = /(?<![\s,:.!])[\s,:.!]+$/u;

/** Trims the captured text of the quotes and punctuation around it; nothing when it is too long to keep. */
const cleaned = (raw: string): string | undefined => {
  const value = raw.replace(TRAILING_PUNCTUATION, '').replace(SURROUNDING_QUOTES, '').trim();
  return value.length > 0 && value.length <= RULE_STRING_MAX_LENGTH ? value : undefined;
};

const IANA_ZONE = /^[A-Za-z]+(?:[_-][A-Za-z]+)*(?:\/[A-Za-z0-9]+(?:[_+-][A-Za-z0-9]+)*){1,2}$/;
const UTC_OFFSET = /^(?:utc|gmt) ?(?:[+-] ?\d{1,2}(?::?\d{2})?)?$/i;
const ZONE_ABBREVIATION = /^[A-Z]{1,4}T$/;
const ZONE_NAME = /^(?:[A-Z][a-z]+ ){1,3}Time$/;

const timeZone = (value: string): string | undefined => {
  if (UTC_OFFSET.test(value)) return value.toUpperCase().replaceAll(' ', '');
  return IANA_ZONE.test(value) || ZONE_ABBREVIATION.test(value) || ZONE_NAME.test(value) ? value : undefined;
};

const JOINING_WORDS = new Set([
  'al',
  'am',
  'and',
  'bin',
  'da',
  'das',
  'de',
  'del',
  'della',
  'der',
  'di',
  'do',
  'dos',
  'du',
  'el',
  'im',
  'la',
  'le',
  'les',
  'of',
  'on',
  'sur',
  'the',
  'upon',
  'van',
  'von',
  'y',
]);
const CAPITALISED_WORD = /^\p{Lu}[\p{L}\p{M}'.-]*,?$/u;

/** A proper name of at most `maxWords` words: each capitalised, or a joining word between two that are. */
const properName =
  (maxWords: number) =>
  (value: string): string | undefined => {
    const words = value.split(' ');
    const named = words[0] === 'the' ? words.slice(1) : words;
    const first = named[0];
    const last = named.at(-1);
    if (words.length > maxWords || first === undefined || last === undefined) return undefined;
    if (!CAPITALISED_WORD.test(first) || !CAPITALISED_WORD.test(last)) return undefined;
    return named.every((word) => CAPITALISED_WORD.test(word) || JOINING_WORDS.has(word)) ? value : undefined;
  };

const ROLE_WORD = /^[\p{L}\p{M}&/'-]+$/u;
const ROLE_QUALIFIER = / (?:at|for|in|with|on) /iu;
const CLAUSE_OPENERS = new Set(['to', 'that', 'which', 'what', 'being', 'not', 'no', 'never', 'about', 'as']);
const MAX_ROLE_WORDS = 4;

const jobTitle = (value: string): string | undefined => {
  const title = value.split(ROLE_QUALIFIER)[0]?.trim() ?? '';
  const words = title.split(' ');
  if (words.length > MAX_ROLE_WORDS || CLAUSE_OPENERS.has(words[0]?.toLowerCase() ?? '')) return undefined;
  return words.every((word) => ROLE_WORD.test(word)) ? title : undefined;
};

/** Natural languages an answer can be asked in, by their English names. */
export const LANGUAGES: ReadonlySet<string> = new Set([
  'arabic',
  'bengali',
  'bulgarian',
  'cantonese',
  'catalan',
  'chinese',
  'croatian',
  'czech',
  'danish',
  'dutch',
  'english',
  'estonian',
  'filipino',
  'finnish',
  'french',
  'german',
  'greek',
  'hebrew',
  'hindi',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'japanese',
  'korean',
  'latvian',
  'lithuanian',
  'malay',
  'mandarin',
  'norwegian',
  'persian',
  'polish',
  'portuguese',
  'romanian',
  'russian',
  'serbian',
  'slovak',
  'slovenian',
  'spanish',
  'swahili',
  'swedish',
  'tagalog',
  'tamil',
  'thai',
  'turkish',
  'ukrainian',
  'urdu',
  'vietnamese',
  'welsh',
]);

const language = (value: string): string | undefined => {
  const name = value.toLowerCase();
  return LANGUAGES.has(name) ? name : undefined;
};

/** Maps the words of an enumeration to its values, whatever their case. */
const oneOf =
  (synonyms: Readonly<Record<string, string>>) =>
  (value: string): string | undefined =>
    Object.hasOwn(synonyms, value.toLowerCase()) ? synonyms[value.toLowerCase()] : undefined;

const LENGTHS = {
  short: 'short',
  shorter: 'short',
  concise: 'short',
  brief: 'short',
  long: 'long',
  longer: 'long',
  detailed: 'long',
  'in-depth': 'long',
  thorough: 'long',
};
const TONES = { formal: 'formal', casual: 'casual', informal: 'casual' };
const FORMATS = { 'bullet points': 'bullets', 'bulleted lists': 'bullets', 'bullet lists': 'bullets', prose: 'prose' };

export interface StatementPattern {
  readonly key: RuleKey;
  readonly kind: RuleKind;
  readonly confirm: readonly RegExp[];
  readonly refute: readonly RegExp[];
  /** The value to keep from the captured text, or nothing when the text is not one. */
  readonly valueFrom: (value: string) => RuleValue | undefined;
}

// Group 1 of every pattern captures the value; the alternations spell the words each row of the table allows.
const LENGTH_WORDS = '(short|shorter|concise|brief|long|longer|detailed|in-depth|thorough)';
const ANSWERS = '(?:answers|responses|replies)';
const WANT = "i(?:'d| would)? (?:prefer|like|want)";
const DO_NOT_WANT = "i (?:don't|do not) (?:prefer|like|want)";
const ANSWER_VERB = '(?:answer|reply|respond|write)';

export const STATEMENT_PATTERNS: readonly StatementPattern[] = [
  {
    key: 'timezone',
    kind: 'profile',
    confirm: [/^my time ?zone is (?!not |no longer )(.+)$/iu],
    refute: [/^my time ?zone is (?:not|no longer) (.+)$/iu],
    valueFrom: timeZone,
  },
  {
    key: 'location',
    kind: 'profile',
    confirm: [/^i(?: live| am based|'m based) in (.+)$/iu],
    refute: [
      /^i (?:no longer|don't|do not) live in (.+?)(?: any ?more)?$/iu,
      /^i(?: am|'m) (?:not|no longer) based in (.+?)(?: any ?more)?$/iu,
    ],
    valueFrom: properName(6),
  },
  {
    key: 'role',
    kind: 'profile',
    confirm: [/^my role is (?!not |no longer )(?:an? |the )?(.+)$/iu, /^i work as an? (.+)$/iu],
    refute: [
      /^my role is (?:not|no longer) (?:an? |the )?(.+)$/iu,
      /^i (?:no longer|don't|do not) work as an? (.+?)(?: any ?more)?$/iu,
    ],
    valueFrom: jobTitle,
  },
  {
    key: 'preferred_name',
    kind: 'profile',
    confirm: [/^(?:please )?call me (.+)$/iu],
    refute: [/^(?:please )?(?:don't|do not) call me (.+)$/iu],
    valueFrom: properName(3),
  },
  {
    key: 'response.language',
    kind: 'preference',
    confirm: [
      /^my preferred language is (?!not |no longer )(.+)$/iu,
      new RegExp(`^(?:please )?${ANSWER_VERB}(?: to me)? in (.+)$`, 'iu'),
    ],
    refute: [
      /^my preferred language is (?:not|no longer) (.+)$/iu,
      new RegExp(`^(?:please )?(?:don't|do not) ${ANSWER_VERB}(?: to me)? in (.+)$`, 'iu'),
    ],
    valueFrom: language,
  },
  {
    key: 'response.length',
    kind: 'preference',
    confirm: [new RegExp(`^${WANT} ${LENGTH_WORDS} ${ANSWERS}$`, 'iu')],
    refute: [new RegExp(`^${DO_NOT_WANT} ${LENGTH_WORDS} ${ANSWERS}$`, 'iu')],
    valueFrom: oneOf(LENGTHS),
  },
  {
    key: 'response.tone',
    kind: 'preference',
    confirm: [new RegExp(`^${WANT} (?:an? )?(formal|casual|informal) tone$`, 'iu')],
    refute: [new RegExp(`^${DO_NOT_WANT} (?:an? )?(formal|casual|informal) tone$`, 'iu')],
    valueFrom: oneOf(TONES),
  },
  {
    key: 'response.format',
    kind: 'preference',
    confirm: [
      new RegExp(`^${WANT} (?:${ANSWERS} (?:in|as) )?(bullet points|bulleted lists|bullet lists|prose)$`, 'iu'),
    ],
    refute: [
      new RegExp(`^${DO_NOT_WANT} (?:${ANSWERS} (?:in|as) )?(bullet points|bulleted lists|bullet lists|prose)$`, 'iu'),
    ],
    valueFrom: oneOf(FORMATS),
  },
];

const captured = (patterns: readonly RegExp[], sentence: string): string | undefined => {
  for (const pattern of patterns) {
    const value = pattern.exec(sentence)?.[1];
    if (value !== undefined) return value;
  }
  return undefined;
};

/** The candidate one sentence states, if it matches a pattern and its value is one the pattern allows. */
const candidateOf = (sentence: string): CandidateRule | undefined => {
  for (const { key, kind, confirm, refute, valueFrom } of STATEMENT_PATTERNS) {
    const confirmed = captured(confirm, sentence);
    const raw = confirmed ?? captured(refute, sentence);
    if (raw === undefined) continue;
    const text = cleaned(raw);
    const value = text === undefined ? undefined : valueFrom(text);
    if (value === undefined) continue;
    const polarity = confirmed === undefined ? 'refute' : 'confirm';
    return { key, value, kind, basis: 'declarative', cardinality: 'single', polarity };
  }
  return undefined;
};

/** Keeps, per key, only what the statement's sentences agree on (see the rules above). */
const agreed = (drafts: readonly CandidateRule[]): CandidateRule[] =>
  drafts.filter((draft) => {
    const aboutKey = drafts.filter(({ key }) => key === draft.key);
    const confirmed = new Set(
      aboutKey.filter(({ polarity }) => polarity === 'confirm').map(({ value }) => valueIdentity(value)),
    );
    if (confirmed.size > 1) return false;
    if (aboutKey.some((other) => other.polarity !== draft.polarity && sameValue(other.value, draft.value)))
      return false;
    return draft.polarity === 'confirm' || confirmed.size === 0;
  });

const freeTextCandidates = (text: string): CandidateRule[] => {
  const drafts: CandidateRule[] = [];
  for (const sentence of sentencesOf(text)) {
    if (sentence.question || sentence.text.length === 0 || sentence.text.length > MAX_SENTENCE_LENGTH) continue;
    const candidate = candidateOf(sentence.text);
    if (candidate !== undefined) drafts.push(candidate);
  }
  return agreed(drafts);
};

const structuredCandidate = (statement: StatementEvent): CandidateRule[] =>
  statement.key === undefined || statement.value === undefined
    ? []
    : [
        {
          key: statement.key,
          value: statement.value,
          kind: statement.kind,
          basis: 'declarative',
          cardinality: statement.cardinality,
          polarity: 'confirm',
        },
      ];

export const statementExtractor: SynchronousExtractor = {
  name: 'statement',
  mode: 'synchronous',
  extract: (event) => {
    if (event.type !== 'statement') return [];
    return event.key === undefined ? freeTextCandidates(event.text) : structuredCandidate(event);
  },
};
