import type { NamespaceOwner } from '../../../kernel/namespaces/namespace.ts';
import { detectInstructionInjection } from '../../../kernel/protection/instruction-injection.ts';
import { normalisedTextHash } from '../ranking/fusion.ts';
import type { SearchStrategy } from '../search.schema.ts';
import type { Limitation, SearchOutcome, VerifiedHit } from './search-outcome.ts';

export interface ContextItem {
  readonly id: string;
  readonly kind: string;
  readonly revision: number;
  readonly status: string;
  readonly source: { readonly owner: NamespaceOwner; readonly kind: string };
  readonly score: number;
  /** Stored text: data to read, never instructions to follow, whatever it says. */
  readonly text: string;
  readonly tokens: number;
  readonly contradicts?: readonly string[] | undefined;
  readonly duplicates?: readonly string[] | undefined;
  /** `instruction-like`: the text reads as an attempt to instruct whoever reads it. */
  readonly flags?: readonly string[] | undefined;
}

export interface AssembledContext {
  readonly items: readonly ContextItem[];
  readonly tokens: number;
  readonly maxTokens: number;
  readonly strategy: SearchStrategy;
  readonly limitations: readonly Limitation[];
}

/** The edge type whose shared values make two records speak about the same subject (a rule key). */
const SUBJECT_EDGE = 'rule';
/** What an item costs beyond its text: its id, kind, revision and source as the caller lays them out. */
const ITEM_OVERHEAD_TOKENS = 12;

/** Tokens of a text as a model's tokenizer would count them, roughly: four characters a token, rounded up. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * A bounded context from verified hits, best first: exact duplicates folded into the first of them, items that
 * say different things about the same subject kept side by side (marked `contradicts`), and whatever does not fit
 * in `maxTokens` left out and said so — never a contradiction silently dropped while its counterpart stays.
 */
export const assembleContext = (outcome: SearchOutcome, maxTokens: number): AssembledContext => {
  const limitations = [...outcome.limitations];
  const distinct: { hit: VerifiedHit; duplicates: string[] }[] = [];
  const byText = new Map<string, { hit: VerifiedHit; duplicates: string[] }>();
  for (const hit of outcome.hits) {
    const hash = normalisedTextHash(hit.fields.text);
    const first = byText.get(hash);
    if (first) first.duplicates.push(hit.head.id);
    else {
      const entry = { hit, duplicates: [] };
      byText.set(hash, entry);
      distinct.push(entry);
    }
  }
  const subjects = new Map<string, string[]>();
  for (const { hit } of distinct)
    for (const subject of hit.fields.edges?.[SUBJECT_EDGE] ?? [])
      subjects.set(subject, [...(subjects.get(subject) ?? []), hit.head.id]);
  const contradictionsOf = (hit: VerifiedHit): string[] => [
    ...new Set(
      (hit.fields.edges?.[SUBJECT_EDGE] ?? []).flatMap((subject) =>
        (subjects.get(subject) ?? []).filter((id) => id !== hit.head.id),
      ),
    ),
  ];

  const items: ContextItem[] = [];
  const placed = new Set<string>();
  let tokens = 0;
  let left = 0;
  let cutContradiction = false;
  const byId = new Map(distinct.map((entry) => [entry.hit.head.id, entry]));
  const place = (entry: { hit: VerifiedHit; duplicates: string[] }): boolean => {
    const item = itemOf(entry.hit, entry.duplicates, contradictionsOf(entry.hit));
    if (tokens + item.tokens > maxTokens) return false;
    items.push(item);
    placed.add(item.id);
    tokens += item.tokens;
    return true;
  };
  for (const entry of distinct) {
    if (placed.has(entry.hit.head.id)) continue;
    if (!place(entry)) {
      left += 1;
      continue;
    }
    // Its counterparts go right after it, so a reader meets the disagreement together.
    for (const id of contradictionsOf(entry.hit)) {
      const counterpart = byId.get(id);
      if (!counterpart || placed.has(id)) continue;
      if (!place(counterpart)) cutContradiction = true;
    }
  }
  if (left > 0)
    limitations.push({
      code: 'context-truncated',
      message: `${left} relevant items did not fit in ${maxTokens} tokens and were left out`,
    });
  if (cutContradiction)
    limitations.push({
      code: 'contradiction-cut',
      message: 'An item disagrees with one that did not fit: the context shows only one side of it',
    });
  return { items, tokens, maxTokens, strategy: outcome.strategy, limitations };
};

const itemOf = (hit: VerifiedHit, duplicates: readonly string[], contradicts: readonly string[]): ContextItem => {
  const injection = detectInstructionInjection(hit.fields.text);
  return {
    id: hit.head.id,
    kind: hit.head.namespace.kind.name,
    revision: hit.head.revision,
    status: hit.head.status,
    source: { owner: hit.head.namespace.owner, kind: hit.head.namespace.kind.name },
    score: hit.score,
    text: hit.fields.text,
    tokens: estimateTokens(hit.fields.text) + ITEM_OVERHEAD_TOKENS,
    ...(contradicts.length > 0 && { contradicts }),
    ...(duplicates.length > 0 && { duplicates }),
    ...(injection.verdict === 'quarantine' && { flags: ['instruction-like'] }),
  };
};
