/*
 * Entity mentions for the graph strategy: names a text mentions, so two memories about the same person,
 * project or system are related even when they share no tag. Deterministic and model-free: a run of
 * capitalised words (less a leading function word such as "The" or "We"), an identifier with digits or inner capitals
 * (`INC-4211`, `eu-west-1`, `PostgreSQL`), a @handle or a #hashtag. Folded to lower case, so mentions match
 * across spellings of case.
 */

const MAX_MENTIONS = 32;

const CAPITALISED_RUN = /\b\p{Lu}[\p{Ll}\p{Lu}\p{Nd}'-]*(?:\s+\p{Lu}[\p{Ll}\p{Lu}\p{Nd}'-]*)*/gu;
/** Candidate identifiers: runs of letters, digits, `-` and `_`, found in one linear pass and then tested. */
const WORD_RUN = /[\p{L}\p{Nd}_-]{2,64}/gu;
const HAS_DIGIT = /\p{Nd}/u;
const HAS_LETTER = /\p{L}/u;
const JOINED = /^[\p{L}\p{Nd}]+(?:[-_][\p{L}\p{Nd}]+)+$/u;
const INNER_CAPITAL = /^\p{L}+\p{Ll}\p{Lu}[\p{L}\p{Nd}]*$/u;
/** Names come early in what people write; scanning a bounded prefix keeps the cost linear and small. */
const MAX_SCANNED = 4000;

const isIdentifier = (run: string): boolean =>
  (JOINED.test(run) && HAS_DIGIT.test(run) && HAS_LETTER.test(run)) || INNER_CAPITAL.test(run);
const HANDLE = /(?:^|\s)[@#]([\p{L}\p{Nd}_-]{2,64})/gu;
/** Words that are capitalised at the start of a sentence but never a name, dropped from the front of a run. */
const FUNCTION_WORDS = new Set(
  (
    'a an the this that these those i we you he she it they my our your his her its their me us them ' +
    'in on at by for from to of with about after before during when while if so but and or then there here ' +
    'today yesterday tomorrow please yes no not also only just now next last every each all some any ' +
    'what which who whom whose where why how is are was were be been do does did can could will would should'
  ).split(' '),
);

export const entityMentions = (full: string): string[] => {
  const text = full.slice(0, MAX_SCANNED);
  const mentions = new Set<string>();
  for (const match of text.matchAll(CAPITALISED_RUN)) {
    const words = match[0].split(/\s+/u);
    while (words.length > 0 && FUNCTION_WORDS.has((words[0] as string).toLowerCase())) words.shift();
    if (words.length > 0) mentions.add(words.join(' ').toLowerCase());
  }
  for (const match of text.matchAll(WORD_RUN)) if (isIdentifier(match[0])) mentions.add(match[0].toLowerCase());
  for (const match of text.matchAll(HANDLE)) if (match[1]) mentions.add(match[1].toLowerCase());
  return [...mentions].filter((mention) => mention.length >= 2).slice(0, MAX_MENTIONS);
};
