/**
 * The paraphrase lexicon and the phrasing of templates. A concept is a synonym group as a thesaurus would list
 * it (every sense an ordinary English word or phrase for the same idea, in the grammatical forms the templates
 * need); a memory is written with one sense of each concept it uses, a paraphrase query with another. The
 * groups were written from everyday usage, not from what any retrieval method matches: they hold plain
 * synonyms, spelling variants (time zone / timezone) and abbreviations (PR / pull request) alike.
 */

/** One sense of a concept, by form: `base` (singular noun, verb base or adjective), `s` (plural / third
 * person), `ed` (past / participle), `ing`, and a few named phrase forms the templates use. */
export type Sense = Readonly<Record<string, string>>;

export const LEXICON: Readonly<Record<string, readonly Sense[]>> = {
  prefer: [
    { base: 'prefer', s: 'prefers', ed: 'preferred' },
    { base: 'like', s: 'likes', ed: 'liked' },
    { base: 'favour', s: 'favours', ed: 'favoured' },
    { base: 'want', s: 'wants', ed: 'wanted' },
  ],
  answer: [
    { base: 'answer', s: 'answers' },
    { base: 'reply', s: 'replies' },
    { base: 'response', s: 'responses' },
  ],
  respond: [
    { base: 'reply', s: 'replies' },
    { base: 'respond', s: 'responds' },
    { base: 'write back', s: 'writes back' },
  ],
  brief: [{ base: 'short' }, { base: 'brief' }, { base: 'concise' }, { base: 'succinct' }],
  lengthy: [{ base: 'long' }, { base: 'detailed' }, { base: 'thorough' }, { base: 'in-depth' }],
  formal: [{ base: 'formal' }, { base: 'professional' }, { base: 'businesslike' }],
  casual: [{ base: 'casual' }, { base: 'informal' }, { base: 'relaxed' }],
  tone: [{ base: 'tone' }, { base: 'register' }, { base: 'style' }],
  bullets: [{ base: 'bullet points' }, { base: 'bulleted lists' }, { base: 'lists of points' }],
  prose: [{ base: 'prose' }, { base: 'full paragraphs' }, { base: 'running text' }],
  timezone: [{ base: 'time zone' }, { base: 'timezone' }, { base: 'local time' }],
  live: [
    { s: 'lives in', q: 'does {$person} live', qin: 'does {$person} live in' },
    { s: 'is based in', q: 'is {$person} based', qin: 'is {$person} based in' },
    { s: 'resides in', q: 'does {$person} reside', qin: 'does {$person} reside in' },
  ],
  move: [
    { ed: 'moved', base: 'move' },
    { ed: 'relocated', base: 'relocate' },
    { ed: 'switched', base: 'switch' },
  ],
  job: [{ base: 'role' }, { base: 'job' }, { base: 'position' }, { base: 'job title' }],
  work: [{ s: 'works as' }, { s: 'is employed as' }, { s: 'serves as' }],
  call: [
    { ed: 'called', q: 'call {$person}' },
    { ed: 'addressed as', q: 'address {$person} as' },
    { ed: 'referred to as', q: 'refer to {$person} as' },
  ],
  meeting: [
    { base: 'meeting', s: 'meetings' },
    { base: 'call', s: 'calls' },
    { base: 'sync', s: 'syncs' },
  ],
  contact: [
    { base: 'contact', ed: 'contacted' },
    { base: 'reach', ed: 'reached' },
    { base: 'ping', ed: 'pinged' },
  ],
  pullRequest: [
    { base: 'pull request', s: 'pull requests' },
    { base: 'PR', s: 'PRs' },
    { base: 'merge request', s: 'merge requests' },
    { base: 'code change', s: 'code changes' },
  ],
  small: [{ base: 'small' }, { base: 'little' }, { base: 'compact' }],
  team: [
    { base: 'team', s: 'teams' },
    { base: 'group', s: 'groups' },
    { base: 'squad', s: 'squads' },
  ],
  manager: [{ base: 'manager' }, { base: 'line manager' }, { base: 'boss' }, { base: 'supervisor' }],
  reportTo: [{ s: 'reports to' }, { s: 'answers to' }, { s: 'works under' }],
  holiday: [{ base: 'holiday' }, { base: 'vacation' }, { base: 'leave' }, { base: 'time off' }],
  away: [{ base: 'away' }, { base: 'out of office' }, { base: 'off' }, { base: 'unavailable' }],
  expert: [
    { base: 'go-to person', s: 'go-to people' },
    { base: 'expert', s: 'experts' },
    { base: 'specialist', s: 'specialists' },
  ],
  help: [
    { base: 'help', s: 'helps' },
    { base: 'assist', s: 'assists' },
    { base: 'support', s: 'supports' },
  ],
  question: [
    { base: 'question', s: 'questions' },
    { base: 'query', s: 'queries' },
    { base: 'problem', s: 'problems' },
  ],
  eat: [{ base: 'eat' }, { base: 'consume' }, { base: 'have' }],
  food: [{ base: 'food' }, { base: 'dinner' }, { base: 'lunch' }],
  join: [
    { ed: 'joined', base: 'join' },
    { ed: 'started at', base: 'start at' },
    { ed: 'came on board at', base: 'come on board at' },
  ],
  company: [{ base: 'company' }, { base: 'firm' }, { base: 'organisation' }],
  lead: [
    { base: 'lead', s: 'leads' },
    { base: 'head', s: 'heads' },
    { base: 'run', s: 'runs' },
    { base: 'manage', s: 'manages' },
  ],
  techLead: [{ base: 'tech lead' }, { base: 'technical lead' }, { base: 'lead engineer' }],
  channel: [{ base: 'channel' }, { base: 'chat room' }, { base: 'room' }],
  standup: [{ base: 'standup' }, { base: 'daily check-in' }, { base: 'morning huddle' }],
  daily: [{ base: 'every weekday' }, { base: 'each working day' }, { base: 'daily' }],
  own: [
    { s: 'owns', ed: 'owned by', q: 'is responsible for' },
    { s: 'maintains', ed: 'maintained by', q: 'maintains' },
    { s: 'looks after', ed: 'looked after by', q: 'looks after' },
  ],
  store: [
    { base: 'store', s: 'stores' },
    { base: 'keep', s: 'keeps' },
    { base: 'persist', s: 'persists' },
    { base: 'save', s: 'saves' },
  ],
  data: [{ base: 'data' }, { base: 'records' }, { base: 'information' }],
  database: [{ base: 'database' }, { base: 'datastore' }, { base: 'storage engine' }],
  write: [{ ed: 'written in' }, { ed: 'built with' }, { ed: 'implemented in' }, { ed: 'coded in' }],
  launch: [
    { base: 'launch', s: 'launches', noun: 'launch' },
    { base: 'go live', s: 'goes live', noun: 'go-live' },
    { base: 'ship', s: 'ships', noun: 'release' },
  ],
  plan: [{ ed: 'planned' }, { ed: 'scheduled' }, { ed: 'set' }, { ed: 'booked' }],
  postpone: [{ ed: 'postponed' }, { ed: 'pushed back' }, { ed: 'delayed' }, { ed: 'moved' }],
  staging: [{ base: 'staging' }, { base: 'pre-production' }, { base: 'test' }],
  run: [{ s: 'runs on' }, { s: 'is hosted on' }, { s: 'lives on' }],
  deploy: [
    { base: 'deploy', s: 'deploys', noun: 'deployments' },
    { base: 'release', s: 'releases', noun: 'releases' },
    { base: 'roll out', s: 'rolls out', noun: 'rollouts' },
  ],
  only: [{ base: 'only' }, { base: 'exclusively' }, { base: 'and on no other day' }],
  code: [{ base: 'code' }, { base: 'source' }, { base: 'source code' }],
  repository: [{ base: 'repository' }, { base: 'repo' }, { base: 'git project' }],
  flag: [{ base: 'feature flag' }, { base: 'feature toggle' }, { base: 'flag' }],
  hidden: [{ base: 'behind' }, { base: 'gated by' }, { base: 'controlled by' }],
  budget: [{ base: 'budget' }, { base: 'funding' }, { base: 'allocation' }, { base: 'spending limit' }],
  money: [{ base: 'money' }, { base: 'cash' }, { base: 'spending money' }],
  bug: [{ base: 'bug' }, { base: 'defect' }, { base: 'issue' }, { base: 'fault' }],
  mean: [{ s: 'means' }, { s: 'indicates' }, { s: 'signals' }],
  fix: [
    { base: 'fix', imp: 'Fix' },
    { base: 'remedy', imp: 'Remedy' },
    { base: 'resolution', imp: 'To resolve' },
  ],
  listen: [{ s: 'listens on' }, { s: 'serves on' }, { s: 'binds to' }],
  tail: [
    { base: 'tail', imp: 'Tail' },
    { base: 'follow', imp: 'Follow' },
    { base: 'stream', imp: 'Stream' },
  ],
  logs: [{ base: 'logs' }, { base: 'log output' }, { base: 'log lines' }],
  rotate: [
    { base: 'rotate', imp: 'rotate' },
    { base: 'replace', imp: 'replace' },
    { base: 'renew', imp: 'renew' },
    { base: 'roll over', imp: 'roll over' },
  ],
  signingKey: [{ base: 'signing key' }, { base: 'signature key' }, { base: 'key used for signing' }],
  restart: [{ base: 'restart' }, { base: 'reboot' }, { base: 'bounce' }, { base: 'cycle' }],
  safely: [{ base: 'safely' }, { base: 'without downtime' }, { base: 'gracefully' }],
  decide: [
    { base: 'decide on', ed: 'decided on', noun: 'decision' },
    { base: 'agree on', ed: 'agreed on', noun: 'agreement' },
    { base: 'choose', ed: 'chose', noun: 'choice' },
    { base: 'settle on', ed: 'settled on', noun: 'conclusion' },
  ],
  use: [
    { base: 'use', s: 'uses' },
    { base: 'go with', s: 'goes with' },
    { base: 'adopt', s: 'adopts' },
    { base: 'rely on', s: 'relies on' },
  ],
  retro: [{ base: 'retro' }, { base: 'retrospective' }, { base: 'lessons-learned session' }],
  offsite: [{ base: 'offsite' }, { base: 'away day' }, { base: 'retreat' }],
  latest: [{ base: 'latest' }, { base: 'most recent' }, { base: 'newest' }, { base: 'current' }],
};

/** Which sense of each concept a fact was written with; a paraphrase of the fact avoids these. */
export type Wording = Map<string, number>;

/**
 * How a template picks its senses: `memory` chooses freely and records the choice; `restate` (a near-duplicate
 * of a memory) keeps each recorded sense three times in four; `same` repeats the recorded senses; `other` picks
 * a different sense than the recorded one wherever the concept has one.
 */
export type PhrasingMode = 'memory' | 'restate' | 'same' | 'other';

const PLACEHOLDER = /\{([@$]?)([A-Za-z][A-Za-z0-9]*)(?:\.([A-Za-z]+))?\}/g;

const senseIndex = (concept: string, mode: PhrasingMode, wording: Wording, random: () => number): number => {
  const senses = LEXICON[concept];
  if (!senses) throw new Error(`Unknown concept "${concept}"`);
  const recorded = wording.get(concept);
  const anyIndex = (): number => Math.floor(random() * senses.length);
  if (recorded === undefined) {
    const chosen = anyIndex();
    if (mode === 'memory') wording.set(concept, chosen);
    return chosen;
  }
  if (mode === 'same' || mode === 'memory') return recorded;
  if (mode === 'restate' && random() < 0.75) return recorded;
  if (senses.length === 1) return recorded;
  const offset = 1 + Math.floor(random() * (senses.length - 1));
  return (recorded + offset) % senses.length;
};

const formOf = (concept: string, index: number, form: string): string => {
  const text = LEXICON[concept]?.[index]?.[form];
  if (text === undefined) throw new Error(`Concept "${concept}" has no form "${form}" in sense ${index}`);
  return text;
};

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Writes a template: `{concept}` or `{concept.form}` is a sense of a lexicon concept, `{@slot.form}` the concept
 * a slot names (a value such as "brief"), `{$slot}` a slot's text. Concepts are chosen per `mode` (a concept
 * used twice in a template keeps one sense); senses may themselves hold slots. A template that opens on a
 * concept is capitalised.
 */
export const phrase = (
  template: string,
  slots: Readonly<Record<string, string>>,
  mode: PhrasingMode,
  wording: Wording,
  random: () => number,
): string => {
  const local = new Map<string, number>();
  const withConcepts = template.replace(PLACEHOLDER, (whole, sigil: string, name: string, form?: string) => {
    if (sigil === '$') return whole;
    const concept = sigil === '@' ? slots[name] : name;
    if (concept === undefined) throw new Error(`Template "${template}" names a missing slot "${name}"`);
    let index = local.get(concept);
    if (index === undefined) {
      index = senseIndex(concept, mode, wording, random);
      local.set(concept, index);
    }
    return formOf(concept, index, form ?? 'base');
  });
  const withSlots = withConcepts.replace(PLACEHOLDER, (whole, sigil: string, name: string) => {
    if (sigil !== '$') throw new Error(`Template "${template}" left "${whole}" unresolved`);
    const value = slots[name];
    if (value === undefined) throw new Error(`Template "${template}" names a missing slot "${name}"`);
    return value;
  });
  // Only a template that opens on a concept is capitalised: one that opens on a slot keeps the value as
  // written (`ledger-api`), and one that opens on text keeps its own case (`kubectl logs …`).
  return /^\{@?[A-Za-z]/.test(template) ? capitalise(withSlots) : withSlots;
};
