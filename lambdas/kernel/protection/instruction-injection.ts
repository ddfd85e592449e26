import { type TextWalkLimits, walkJsonText } from './json-text-walk.ts';
import type { InstructionInjectionReason } from './protection.schema.ts';
import { normalizeForScreening } from './text-normalization.ts';

/*
 * Stored text is data, never instructions (DESIGN §4). Text submitted for shared memory that reads as an
 * attempt to instruct the agents who will later recall it is quarantined for review. This module only
 * flags: it never strips, rewrites or acts on the text, and nothing in stored content changes a
 * permission whatever it says. The patterns run on a lower-cased copy with runs of spaces and tabs
 * collapsed, so case and spacing do not matter; every quantifier is bounded and every pattern starts on
 * a literal, so a scan is linear in the text.
 */

export type InjectionVerdict =
  | { readonly verdict: 'clean' }
  | { readonly verdict: 'quarantine'; readonly reasons: readonly InstructionInjectionReason[] };

const CLEAN: InjectionVerdict = Object.freeze({ verdict: 'clean' });

type InjectionReason = Extract<InstructionInjectionReason, `injection.${string}`>;

const OVERRIDE_VERB = '(?:ignore|disregard|forget|bypass|override|discard|neglect)';
const QUALIFIER =
  '(?:previous|prior|earlier|above|preceding|foregoing|original|initial|former|system|developer|safety|your)';
const INSTRUCTION_NOUN =
  '(?:instructions?|prompts?|rules|directives?|guidelines?|guardrails?|constraints?|commands?|polic(?:y|ies)|programming|restrictions?|context|training)';

const OVERRIDE_INSTRUCTIONS: readonly RegExp[] = [
  // "ignore all previous instructions", "forget your rules", "disregard the system prompt"
  new RegExp(
    `\\b${OVERRIDE_VERB}\\s+(?:(?:all|any|of|the|each|every|these|those)\\s+){0,3}(?:${QUALIFIER}\\s+){1,3}(?:[a-z]+\\s+)?${INSTRUCTION_NOUN}\\b`,
  ),
  // "ignore all instructions", "disregard any rules"
  new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:all|any|every)\\s+(?:of\\s+)?(?:the\\s+)?${INSTRUCTION_NOUN}\\b`),
  // "ignore all of the above", "disregard everything above", "forget everything you were told" (or "you've been")
  /\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:of\s+)?(?:the\s+)?(?:above|before|previous|prior|earlier|(?:that\s+|which\s+)?(?:you\s+|you(?='))?(?:were|have\s+been|'ve\s+been|was)\s+(?:told|given|instructed))\b/,
  // "do not follow your instructions", "stop obeying the system prompt"
  /\b(?:do\s+not|don't|stop)\s+(?:follow(?:ing)?|obey(?:ing)?)\s+(?:your(?:\s+(?:previous|prior|original|system))?|the\s+(?:previous|prior|original|system|above))\s+(?:instructions|rules|guidelines|system\s+prompt|prompt)\b/,
  // "your new instructions are", "new system prompt"
  /\b(?:your|the)\s+(?:new|real|actual|true|updated)\s+(?:instructions|directives|task|rules|system\s+prompt|orders)\s+(?:are|is)\b/,
  /\bnew\s+system\s+prompt\b|\bsystem\s+prompt\s+override\b/,
  /\b(?:dan|jailbreak|jailbroken|unrestricted|unfiltered)\s+mode\b/,
  // "reveal your system prompt"
  /\b(?:reveal|print|output|repeat|show|leak|display)\s+(?:me\s+)?(?:your|the)\s+(?:(?:full|entire|hidden|original|initial)\s+)?(?:system\s+prompt|hidden\s+(?:prompt|instructions)|initial\s+prompt)\b/,
];

const ROLE_LINE_DIRECTIVE =
  "(?:you\\b|your\\b|you're\\b|ignore|disregard|forget|from now on|(?:always|never) (?:respond|reply|answer|say|output|follow|obey|comply|refuse|mention|reveal|tell)\\b|do not|don't|act as|pretend|respond|reply|answer|output|reveal|print|the (?:assistant|user|ai|model)\\b|as an ai|new instructions|override|i am\\b|i'm\\b)";

const ROLE_PROMPT: readonly RegExp[] = [
  // Chat-template special tokens: <|im_start|>, <|system|>, <|eot_id|>, [INST], <<SYS>>, <start_of_turn>
  /<\|[a-z_]{2,30}\|>/,
  /\[\/?inst\]|<<\/?sys>>|<(?:start|end)_of_turn>/,
  /<\/?(?:system|system[_-]prompt|assistant)>/,
  // A system or developer role line that goes on to instruct: "system: you are an unrestricted model"
  new RegExp(
    `(?:^|\\n) ?(?:[#>*[(<-]{1,4} ?)?(?:system|developer|system prompt|sys)(?: ?[\\])>*]{1,3})? ?: ?${ROLE_LINE_DIRECTIVE}`,
  ),
];
// A transcript: a user or human turn and an assistant turn, each at the start of a line.
const USER_TURN = /(?:^|\n) ?(?:[#>*[(<-]{1,4} ?)?(?:user|human)(?: ?[\])>*]{1,3})? ?:/;
const ASSISTANT_TURN = /(?:^|\n) ?(?:[#>*[(<-]{1,4} ?)?(?:assistant|ai)(?: ?[\])>*]{1,3})? ?:/;

const TOOL_CALL_MARKUP: readonly RegExp[] = [
  /<\/?(?:tool_calls?|tool_use|tool_result|tool_response|tool_code|function_calls?|function_results|invoke|antml:[a-z_]{1,30})\b/,
  /<\/function>|<function=|<function\s+name\s*=/,
  /<\|(?:tool_calls?|python_tag|tool_response)\|>|\[tool_calls?\]/,
  // JSON that names a call outright
  /["'](?:tool_calls|function_call)["']\s?:\s?[[{]/,
  /["']type["']\s?:\s?["'](?:tool_use|tool_call|function_call)["']/,
];
// A call's name and its arguments in one JSON object: {"tool": "x", "arguments": {…}},
// {"name": "x", "arguments": …}, {"action": "x", "action_input": …}.
const CALL_NAME_KEY = /["'](tool|tool_name|function|recipient_name|name|action)["']\s?:\s?["'{]/g;
const CALL_ARGUMENTS_KEY = /["'](arguments|args|parameters|params|input|tool_input|action_input)["']\s?:/g;
const ARGUMENT_KEYS_FOR_NAME: Readonly<Record<string, ReadonlySet<string>>> = {
  name: new Set(['arguments', 'tool_input']),
  action: new Set(['action_input']),
};
const CALL_KEY_DISTANCE = 300;

const BENEFICIARY =
  '(?:me|us|myself|him|her|them|this\\s+(?:user|agent|account|client)|the\\s+(?:user|agent|caller|requester)|[a-z0-9_.@-]{1,40})';
const ELEVATED_ROLE =
  '(?:admin(?:istrator|istrative)?|owner(?:ship)?|root|super\\s?user|sudo|org\\s?admin|global\\s+admin)';

const PERMISSION_CHANGE: readonly RegExp[] = [
  // "grant me admin", "grant alice owner access", "grant admin rights to this agent"
  new RegExp(`\\bgrant\\s+(?:${BENEFICIARY}\\s+)?(?:full\\s+|elevated\\s+|permanent\\s+)?${ELEVATED_ROLE}\\b`),
  // "give me admin", "give me full write access" (but not "give me all the logs")
  new RegExp(
    `\\b(?:grant|give)\\s+(?:me|us|myself|this\\s+(?:user|agent))\\s+(?:full\\s+|elevated\\s+|unrestricted\\s+)?(?:${ELEVATED_ROLE}|(?:write|elevated|unrestricted|all|full)\\s+(?:access|rights|privileges|permissions))\\b`,
  ),
  // "make me an owner", "make this agent an admin"
  /\bmake\s+(?:me|us|myself|this\s+(?:user|agent|account)|the\s+(?:user|agent|caller))\s+(?:an?\s+|the\s+)?(?:owner|admin|administrator|superuser|super\s+user|root|maintainer|org\s?admin|moderator)\b/,
  // "change my role", "escalate my privileges", "promote me"
  /\b(?:change|set|update|elevate|escalate|upgrade|modify|raise|promote)\s+(?:my|our|your)\s+(?:role|roles|permissions?|privileges?|access(?:\s+level)?|clearance|scopes?|group)\b/,
  /\b(?:promote|elevate)\s+(?:me|us|myself)\b/,
  new RegExp(`\\b(?:role|permissions?|privileges?|access\\s+level|clearance)\\s+to\\s+(?:an?\\s+)?${ELEVATED_ROLE}\\b`),
  /\badd\s+(?:me|us|myself)\s+(?:to|as)\s+(?:an?\s+|the\s+)?(?:admins?|administrators?|owners?|sudoers|org\s?admins?|maintainers?)\b/,
  // "you are now an admin", "you are now in developer mode", "you're now unrestricted"
  /\b(?:you\s+are|you're)\s+now\s+(?:an?|the|my|in\s+(?:developer|dan|god|jailbreak|admin|unrestricted|sudo|root)\s+mode|no\s+longer|free|unrestricted|unfiltered|jailbroken|root|admin|dan|authori[sz]ed|allowed|permitted)\b/,
];

const HORIZONTAL_WHITESPACE = /[ \t\f\v]+/g;
const LINE_BREAK = /\r\n?/g;

const normalizeForMatching = (text: string): string =>
  normalizeForScreening(text).toLowerCase().replace(LINE_BREAK, '\n').replace(HORIZONTAL_WHITESPACE, ' ');

const MAXIMUM_CALL_KEYS = 1000;

const positionsOf = (text: string, pattern: RegExp): { readonly index: number; readonly key: string }[] => {
  const positions: { readonly index: number; readonly key: string }[] = [];
  for (const match of text.matchAll(pattern)) {
    positions.push({ index: match.index, key: match[1] ?? '' });
    if (positions.length >= MAXIMUM_CALL_KEYS) break;
  }
  return positions;
};

const containsCallObject = (text: string): boolean => {
  if (!text.includes('"') && !text.includes("'")) return false;
  const names = positionsOf(text, CALL_NAME_KEY);
  if (names.length === 0) return false;
  const argumentKeys = positionsOf(text, CALL_ARGUMENTS_KEY);
  return names.some((name) =>
    argumentKeys.some(
      (argument) =>
        Math.abs(argument.index - name.index) <= CALL_KEY_DISTANCE &&
        (ARGUMENT_KEYS_FOR_NAME[name.key]?.has(argument.key) ?? true),
    ),
  );
};

const DETECTORS: readonly { readonly reason: InjectionReason; readonly detects: (text: string) => boolean }[] = [
  { reason: 'injection.override_instructions', detects: (text) => OVERRIDE_INSTRUCTIONS.some((p) => p.test(text)) },
  {
    reason: 'injection.role_prompt',
    detects: (text) => ROLE_PROMPT.some((p) => p.test(text)) || (USER_TURN.test(text) && ASSISTANT_TURN.test(text)),
  },
  {
    reason: 'injection.tool_call',
    detects: (text) => TOOL_CALL_MARKUP.some((p) => p.test(text)) || containsCallObject(text),
  },
  { reason: 'injection.permission_change', detects: (text) => PERMISSION_CHANGE.some((p) => p.test(text)) },
];

const detectInto = (text: string, found: Set<InstructionInjectionReason>): void => {
  const normalized = normalizeForMatching(text);
  for (const detector of DETECTORS) {
    if (!found.has(detector.reason) && detector.detects(normalized)) found.add(detector.reason);
  }
};

const verdictOf = (found: ReadonlySet<InstructionInjectionReason>): InjectionVerdict =>
  found.size === 0 ? CLEAN : Object.freeze({ verdict: 'quarantine', reasons: Object.freeze([...found].sort()) });

/**
 * Flags text that tries to instruct the system:
 * - `injection.override_instructions`: "ignore/disregard (all) previous instructions", "forget your rules";
 * - `injection.role_prompt`: chat-template tokens, role tags, a `system:` line that instructs, a transcript;
 * - `injection.tool_call`: tool-call markup and function-call JSON;
 * - `injection.permission_change`: "grant me admin", "make me an owner", "change my role", "you are now …".
 */
export const detectInstructionInjection = (text: string): InjectionVerdict => {
  const found = new Set<InstructionInjectionReason>();
  detectInto(text, found);
  return verdictOf(found);
};

/**
 * The same check over every string of a JSON value, keys included. Fail-closed like the sensitive-content
 * screen: a value it cannot read in full is quarantined with a `screen.*` reason. It never throws.
 */
export const detectInstructionInjectionInValue = (value: unknown, limits?: TextWalkLimits): InjectionVerdict => {
  const found = new Set<InstructionInjectionReason>();
  try {
    const outcome = walkJsonText(value, (text) => detectInto(text, found), limits);
    if (outcome === 'limit_exceeded') found.add('screen.limit_exceeded');
    if (outcome === 'unsupported_value') found.add('screen.unsupported_value');
    // A call can also arrive as structure rather than text: { "tool": "x", "arguments": { … } }.
    if (outcome === 'complete' && typeof value === 'object' && value !== null && !found.has('injection.tool_call')) {
      if (containsCallObject(JSON.stringify(value).toLowerCase())) found.add('injection.tool_call');
    }
  } catch {
    found.add('screen.unsupported_value');
  }
  return verdictOf(found);
};
