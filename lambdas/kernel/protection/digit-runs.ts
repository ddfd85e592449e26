/**
 * Numbers as people write them: groups of ASCII digits joined by single spaces, hyphens or dots
 * (`4111 1111 1111 1111`, `555-123-4567`, `020 7946 0958`). One linear scan finds every run worth
 * reading, and the card, phone and national-id detectors read its groups instead of each running its own
 * regex.
 */

export interface DigitGroup {
  readonly digits: string;
  /** The separator between this group and the previous one; empty for the first group of a run. */
  readonly separatorBefore: string;
}

export interface DigitRun {
  readonly groups: readonly DigitGroup[];
  /** A letter or underscore touches the run with nothing between (`ORD4111…`, `…1111abc`). */
  readonly gluedStart: boolean;
  readonly gluedEnd: boolean;
  /** The run is part of a larger token: glued, or joined by one of `- . / : , +` to a letter or digit
   * (`ORD-555-…`, `…-4567.txt`, `10:30`, `2026-11-30T10:00`). */
  readonly attachedStart: boolean;
  readonly attachedEnd: boolean;
}

/** A maximal stretch of a run's groups joined by one and the same separator. */
export interface DigitChain {
  readonly lengths: readonly number[];
  readonly digits: string;
  /** Empty for a chain of one group. */
  readonly separator: string;
  readonly attachedStart: boolean;
  readonly attachedEnd: boolean;
}

const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;
const isLetterCode = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isGlueCode = (code: number): boolean => isLetterCode(code) || code === 95;
const isAlphanumericCode = (code: number): boolean => isDigitCode(code) || isLetterCode(code) || code === 95;
const isSeparatorCode = (code: number): boolean => code === 32 || code === 45 || code === 46;
// - . / : , +
const isJoinerCode = (code: number): boolean =>
  code === 45 || code === 46 || code === 47 || code === 58 || code === 44 || code === 43;

/** A run of one group shorter than this holds no identifier any detector reads from runs: card numbers
 * need 13 digits, and the grouped formats need two groups or more. Skipping such runs, which are most of
 * the numbers in ordinary text, keeps the scan cheap. */
const SHORTEST_SINGLE_GROUP_WORTH_READING = 13;

export const scanDigitRuns = (text: string): DigitRun[] => {
  const runs: DigitRun[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    if (!isDigitCode(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const runStart = index;
    let groupCount = 0;
    for (;;) {
      while (index < length && isDigitCode(text.charCodeAt(index))) index++;
      groupCount++;
      if (index + 1 < length && isSeparatorCode(text.charCodeAt(index)) && isDigitCode(text.charCodeAt(index + 1))) {
        index++;
        continue;
      }
      break;
    }
    const runEnd = index;
    if (groupCount === 1 && runEnd - runStart < SHORTEST_SINGLE_GROUP_WORTH_READING) continue;
    const groups: DigitGroup[] = [];
    let groupStart = runStart;
    let separatorBefore = '';
    for (let cursor = runStart; cursor <= runEnd; cursor++) {
      if (cursor < runEnd && isDigitCode(text.charCodeAt(cursor))) continue;
      groups.push({ digits: text.slice(groupStart, cursor), separatorBefore });
      separatorBefore = text.charAt(cursor);
      groupStart = cursor + 1;
    }
    const before = runStart > 0 ? text.charCodeAt(runStart - 1) : Number.NaN;
    const beforeThat = runStart > 1 ? text.charCodeAt(runStart - 2) : Number.NaN;
    const after = runEnd < length ? text.charCodeAt(runEnd) : Number.NaN;
    const afterThat = runEnd + 1 < length ? text.charCodeAt(runEnd + 1) : Number.NaN;
    const gluedStart = isGlueCode(before);
    const gluedEnd = isGlueCode(after);
    runs.push({
      groups,
      gluedStart,
      gluedEnd,
      attachedStart: gluedStart || (isJoinerCode(before) && isAlphanumericCode(beforeThat)),
      attachedEnd: gluedEnd || (isJoinerCode(after) && isAlphanumericCode(afterThat)),
    });
  }
  return runs;
};

/**
 * Splits a run where its separator changes: `call 555-123-4567 2 times` holds the chain `555-123-4567`
 * (hyphens) and the chain `4567 2` (space). A chain's edge inside the run counts as attached only when
 * the other separator is a dot, which reads as a decimal point.
 */
export const chainsOf = (run: DigitRun): DigitChain[] => {
  const { groups } = run;
  const chainOf = (first: number, last: number, separator: string): DigitChain => {
    const members = groups.slice(first, last + 1);
    const separatorOutsideStart = groups[first]?.separatorBefore ?? '';
    const separatorOutsideEnd = groups[last + 1]?.separatorBefore;
    return {
      lengths: members.map((group) => group.digits.length),
      digits: members.map((group) => group.digits).join(''),
      separator,
      attachedStart: first === 0 ? run.attachedStart : separatorOutsideStart === '.',
      attachedEnd: separatorOutsideEnd === undefined ? run.attachedEnd : separatorOutsideEnd === '.',
    };
  };
  if (groups.length === 1) return [chainOf(0, 0, '')];
  const chains: DigitChain[] = [];
  for (let first = 0; first < groups.length - 1; ) {
    const separator = groups[first + 1]?.separatorBefore ?? '';
    let last = first + 1;
    while (groups[last + 1]?.separatorBefore === separator) last++;
    chains.push(chainOf(first, last, separator));
    first = last;
  }
  return chains;
};
