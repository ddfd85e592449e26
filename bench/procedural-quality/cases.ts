/**
 * The procedural-memory labelled set (issue 13, point 9): cases for goal, plan and state divergence, evidence
 * resolution, promotion decisions and procedure ranking, each with the answer a careful manager would give.
 * Written for Memory Hub (see README.md beside this file); every label is stated here, by the case, never
 * computed by the code under test.
 */

// ---------------------------------------------------------------------------------------------------------
// Goal divergence: does the agent's current goal need realigning to its assignment?

export interface GoalCase {
  readonly assigned: string;
  readonly current: string;
  readonly objective: string;
  readonly diverged: boolean;
}

const GOALS: readonly { assigned: string; objective: string; same: string[]; other: string[] }[] = [
  {
    assigned: 'Find the dirty dishes and clean them',
    objective: 'Wash the dirty cups and dishes and put them in the cabinet',
    same: ['Clean the dirty dishes I found', 'Find dirty dishes, then clean the dishes'],
    other: ['Put the apple in the fridge', 'Store the cups in the cabinet'],
  },
  {
    assigned: 'Find a restaurant for the team dinner',
    objective: 'Organise the team dinner on Friday',
    same: ['Find a good restaurant for the team dinner', 'Search restaurants for the dinner of the team'],
    other: ['Book the restaurant table for Friday', 'Order flowers for the office'],
  },
  {
    assigned: 'Run the integration tests of the billing service',
    objective: 'Release the billing service',
    same: ['Run the billing service integration tests', 'Running integration tests for billing'],
    other: ['Deploy the billing service to production', 'Rewrite the billing service in Rust'],
  },
  {
    assigned: 'Review the pull request for the login page',
    objective: 'Ship the new login page',
    same: ['Review the login page pull request', 'Reviewing the pull request of the login page'],
    other: ['Merge the pull request for the login page', 'Design a new logo'],
  },
  {
    assigned: 'Collect the quarterly sales figures',
    objective: 'Prepare the quarterly report',
    same: ['Collect sales figures for the quarter', 'Collecting the quarterly figures of sales'],
    other: ['Write the summary of the report', 'Email the customers about prices'],
  },
  {
    assigned: 'Search flights from Berlin to Lisbon',
    objective: 'Plan the trip to Lisbon',
    same: ['Search for flights Berlin to Lisbon', 'Searching Lisbon flights from Berlin'],
    other: ['Book the hotel in Lisbon', 'Pay for the flight tickets'],
  },
  {
    assigned: 'Rotate the signing key of the API gateway',
    objective: 'Complete the quarterly key rotation',
    same: ['Rotate the API gateway signing key', 'Rotating the signing key for the gateway API'],
    other: ['Delete the old audit logs', 'Restart the API gateway'],
  },
  {
    assigned: 'Restore the database backup to staging',
    objective: 'Rehearse the disaster recovery',
    same: ['Restore the staging database from the backup', 'Restoring database backup on staging'],
    other: ['Drop the staging database', 'Upgrade the database version'],
  },
  {
    assigned: 'Translate the onboarding guide into German',
    objective: 'Publish the onboarding guide for the Berlin office',
    same: ['Translate the onboarding guide to German', 'Translating the German onboarding guide'],
    other: ['Print the onboarding guide', 'Hire a new office manager'],
  },
  {
    assigned: 'Inspect the cabinet and prepare it for storage',
    objective: 'Wash the dirty cups and dishes and put them in the cabinet',
    same: ['Prepare the cabinet for storage after inspecting it', 'Inspect and prepare the storage cabinet'],
    other: ['Take the cup from agent A before it is cleaned', 'Wash the cups'],
  },
];

export const goalCases = (): GoalCase[] =>
  GOALS.flatMap(({ assigned, objective, same, other }) => [
    ...same.map((current) => ({ assigned, current, objective, diverged: false })),
    ...other.map((current) => ({ assigned, current, objective, diverged: true })),
  ]);

// ---------------------------------------------------------------------------------------------------------
// Plan divergence: does the agent's local plan depart from its assigned subgraph?

export interface PlanNode {
  readonly id: string;
  readonly action: string;
}
export interface Plan {
  readonly nodes: readonly PlanNode[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
}
export interface PlanCase {
  readonly name: string;
  readonly assigned: Plan;
  readonly local: Plan;
  readonly diverged: boolean;
}

const chain = (actions: readonly string[]): Plan => ({
  nodes: actions.map((action, index) => ({ id: `s${index}`, action })),
  edges: actions.slice(1).map((_, index) => ({ from: `s${index}`, to: `s${index + 1}` })),
});

const PLANS: readonly Plan[] = [
  chain(['Find the dirty dishes', 'Clean the dishes', 'Hand the dishes to agent C']),
  chain(['Search flights', 'Book the flight', 'Book the hotel', 'Set price alerts']),
  chain(['Check out the branch', 'Run the tests', 'Open the pull request', 'Request a review', 'Merge']),
  chain(['Export the figures', 'Clean the data', 'Build the charts', 'Write the summary', 'Review', 'Publish']),
  {
    nodes: [
      { id: 'a', action: 'Gather the requirements' },
      { id: 'b', action: 'Draft the design' },
      { id: 'c', action: 'Estimate the cost' },
      { id: 'd', action: 'Present the proposal' },
    ],
    edges: [
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'd' },
      { from: 'c', to: 'd' },
    ],
  },
];

const reversed = (plan: Plan): Plan => ({ nodes: [...plan.nodes].reverse(), edges: [...plan.edges].reverse() });
const restyled = (plan: Plan): Plan => ({
  nodes: plan.nodes.map((node) => ({ ...node, action: `  ${node.action.toUpperCase()} ` })),
  edges: plan.edges,
});
const withDetour = (plan: Plan): Plan => {
  const last = plan.nodes.at(-1) as PlanNode;
  return {
    nodes: [...plan.nodes, { id: 'detour', action: 'Put the apple in the fridge' }],
    edges: [...plan.edges, { from: last.id, to: 'detour' }],
  };
};
const withReplacedAction = (plan: Plan): Plan => ({
  nodes: plan.nodes.map((node, index) => (index === 1 ? { ...node, action: 'Do something else entirely' } : node)),
  edges: plan.edges,
});
const withoutFirstPrerequisite = (plan: Plan): Plan => ({ nodes: plan.nodes, edges: plan.edges.slice(1) });
const withoutLastStep = (plan: Plan): Plan => {
  const last = (plan.nodes.at(-1) as PlanNode).id;
  return {
    nodes: plan.nodes.slice(0, -1),
    edges: plan.edges.filter((edge) => edge.from !== last && edge.to !== last),
  };
};

/**
 * What alignment compares in practice: one agent's assigned subgraph, its own nodes and the prerequisite another
 * agent supplies them (reference 001 §4.2), two or three nodes.
 */
const SUBGRAPHS: readonly Plan[] = [
  chain(['Find the dirty dishes', 'Clean the dishes']),
  chain(['Wait for the cleaned cups from agent A', 'Store the cups in the cabinet']),
  chain(['Search flights', 'Book the flight']),
  chain(['Receive the build from agent B', 'Run the tests', 'Report the results']),
];

export const planCases = (): PlanCase[] =>
  [...PLANS, ...SUBGRAPHS].flatMap((assigned, index) => [
    { name: `plan ${index}: reordered`, assigned, local: reversed(assigned), diverged: false },
    { name: `plan ${index}: same plan, other case and spacing`, assigned, local: restyled(assigned), diverged: false },
    { name: `plan ${index}: an unrelated step added`, assigned, local: withDetour(assigned), diverged: true },
    { name: `plan ${index}: a step's action replaced`, assigned, local: withReplacedAction(assigned), diverged: true },
    {
      name: `plan ${index}: a prerequisite dropped`,
      assigned,
      local: withoutFirstPrerequisite(assigned),
      diverged: true,
    },
    { name: `plan ${index}: the last step dropped`, assigned, local: withoutLastStep(assigned), diverged: true },
  ]);

// ---------------------------------------------------------------------------------------------------------
// State: evidence about one key, the resolution expected, and whether the key is in conflict (C_s).

type Tier = 'authoritative' | 'tool_observation' | 'verified_artifact' | 'agent_inference';
export interface Evidence {
  readonly key: string;
  readonly value: string;
  readonly tier: Tier;
  readonly source: string;
  readonly observedAt: string;
  readonly confidence: number;
}
export interface StateCase {
  readonly name: string;
  readonly evidence: readonly Evidence[];
  /** A value, or why it stays unresolved. */
  readonly expected:
    | { readonly value: string }
    | { readonly unresolved: 'no_eligible_evidence' | 'inference_only' | 'tie' | 'conflicting_sources' };
  readonly conflict: boolean;
}

const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const item = (value: string, tier: Tier, source: string, minute: number, confidence = 0.9): Evidence => ({
  key: 'order-7.payment',
  value,
  tier,
  source,
  observedAt: at(minute),
  confidence,
});

export const stateCases = (): StateCase[] => [
  {
    name: 'one tool observation',
    evidence: [item('paid', 'tool_observation', 'api', 1)],
    expected: { value: 'paid' },
    conflict: false,
  },
  {
    name: 'authoritative over a conflicting tool observation',
    evidence: [item('unpaid', 'tool_observation', 'agent-a', 5), item('paid', 'authoritative', 'ledger', 1)],
    expected: { value: 'paid' },
    conflict: true,
  },
  {
    name: 'tool observation over a conflicting inference',
    evidence: [item('unpaid', 'agent_inference', 'agent-b', 9), item('paid', 'tool_observation', 'api', 1)],
    expected: { value: 'paid' },
    conflict: true,
  },
  {
    name: 'verified artifact over inference',
    evidence: [item('shipped', 'verified_artifact', 'receipt', 2), item('pending', 'agent_inference', 'agent-c', 3)],
    expected: { value: 'shipped' },
    conflict: true,
  },
  {
    name: 'low-confidence authoritative evidence ignored',
    evidence: [item('paid', 'authoritative', 'ledger', 1, 0.6), item('unpaid', 'tool_observation', 'api', 2)],
    expected: { value: 'unpaid' },
    conflict: false,
  },
  {
    name: 'confidence exactly at the cut-off counts',
    evidence: [item('paid', 'tool_observation', 'api', 1, 0.7)],
    expected: { value: 'paid' },
    conflict: false,
  },
  {
    name: 'nothing eligible',
    evidence: [item('paid', 'authoritative', 'ledger', 1, 0.5), item('unpaid', 'tool_observation', 'api', 2, 0.69)],
    expected: { unresolved: 'no_eligible_evidence' },
    conflict: false,
  },
  {
    name: 'same source, latest wins',
    evidence: [item('unpaid', 'tool_observation', 'api', 1), item('paid', 'tool_observation', 'api', 4)],
    expected: { value: 'paid' },
    conflict: true,
  },
  {
    name: 'same source, same instant, two values: a tie',
    evidence: [item('unpaid', 'tool_observation', 'api', 4), item('paid', 'tool_observation', 'api', 4, 0.99)],
    expected: { unresolved: 'tie' },
    conflict: true,
  },
  {
    name: 'two sources of the top tier disagree',
    evidence: [item('unpaid', 'tool_observation', 'camera-1', 1), item('paid', 'tool_observation', 'camera-2', 6)],
    expected: { unresolved: 'conflicting_sources' },
    conflict: true,
  },
  {
    name: 'two sources of the top tier agree',
    evidence: [item('paid', 'tool_observation', 'camera-1', 1), item('paid', 'tool_observation', 'camera-2', 6)],
    expected: { value: 'paid' },
    conflict: false,
  },
  {
    name: 'inference alone, even unanimous',
    evidence: [item('paid', 'agent_inference', 'agent-a', 1), item('paid', 'agent_inference', 'agent-b', 2)],
    expected: { unresolved: 'inference_only' },
    conflict: false,
  },
  {
    name: 'inference alone, conflicting',
    evidence: [item('paid', 'agent_inference', 'agent-a', 1), item('unpaid', 'agent_inference', 'agent-b', 2)],
    expected: { unresolved: 'inference_only' },
    conflict: true,
  },
  {
    name: 'confidence does not break a cross-source conflict',
    evidence: [item('paid', 'authoritative', 'ledger', 1, 0.99), item('unpaid', 'authoritative', 'bank', 1, 0.71)],
    expected: { unresolved: 'conflicting_sources' },
    conflict: true,
  },
  {
    name: 'a newer low-tier report under a settled authoritative value',
    evidence: [item('paid', 'authoritative', 'ledger', 1), item('refunded', 'agent_inference', 'agent-d', 30)],
    expected: { value: 'paid' },
    conflict: true,
  },
  {
    name: 'one source corrected itself, another agrees with the correction',
    evidence: [
      item('unpaid', 'tool_observation', 'api', 1),
      item('paid', 'tool_observation', 'api', 5),
      item('paid', 'tool_observation', 'webhook', 6),
    ],
    expected: { value: 'paid' },
    conflict: true,
  },
];

// ---------------------------------------------------------------------------------------------------------
// Promotion: should the candidate become the active version?

export interface Trial {
  readonly candidateReward: number;
  readonly baselineReward: number;
  readonly cost: number;
  readonly stateVerified: boolean;
  readonly causalSupport: boolean;
  readonly recordedAt: string;
}
export interface PromotionCase {
  readonly name: string;
  readonly causalConfidence: number;
  readonly safetyRisk: number;
  readonly steps: readonly { readonly id: string; readonly instruction: string }[];
  readonly prerequisites: readonly { readonly from: string; readonly to: string }[];
  readonly trials: readonly Trial[];
  readonly accept: boolean;
}

const trial = (candidateReward: number, baselineReward: number, cost: number, ok = true, minute = 1): Trial => ({
  candidateReward,
  baselineReward,
  cost,
  stateVerified: ok,
  causalSupport: ok,
  recordedAt: at(minute),
});
const SAFE_STEPS = [
  { id: 'parse', instruction: 'Parse the JSON payload' },
  { id: 'store', instruction: 'Store the summary' },
];
const SAFE_EDGES = [{ from: 'parse', to: 'store' }];
const base = { causalConfidence: 0.8, safetyRisk: 0.1, steps: SAFE_STEPS, prerequisites: SAFE_EDGES };

export const promotionCases = (): PromotionCase[] => [
  { name: 'one good trial', ...base, trials: [trial(0.9, 0.6, 0.1)], accept: true },
  {
    name: 'several good trials',
    ...base,
    trials: [trial(0.8, 0.6, 0.05), trial(0.85, 0.6, 0.05, true, 2)],
    accept: true,
  },
  { name: 'no trial at all', ...base, trials: [], accept: false },
  {
    name: 'only failed trials',
    ...base,
    trials: [trial(0.1, 0.6, 0.1, false), trial(0.2, 0.6, 0.1, false, 2)],
    accept: false,
  },
  {
    name: 'one good and one bad trial, negative mean',
    ...base,
    trials: [trial(0.9, 0.6, 0.1), trial(0.0, 0.6, 0.1, true, 2)],
    accept: false,
  },
  {
    name: 'a failed trial outweighed by good ones',
    ...base,
    trials: [trial(0.9, 0.5, 0.0), trial(0.9, 0.5, 0.0, true, 2), trial(0.4, 0.5, 0.0, false, 0)],
    accept: true,
  },
  { name: 'benefit exactly equal to cost', ...base, trials: [trial(0.7, 0.6, 0.1)], accept: true },
  { name: 'cost above benefit', ...base, trials: [trial(0.7, 0.6, 0.2)], accept: false },
  {
    name: 'causal confidence below 0.65',
    ...base,
    causalConfidence: 0.6,
    trials: [trial(0.9, 0.6, 0.1)],
    accept: false,
  },
  { name: 'causal confidence at 0.65', ...base, causalConfidence: 0.65, trials: [trial(0.9, 0.6, 0.1)], accept: true },
  { name: 'supplied safety risk at 0.50', ...base, safetyRisk: 0.5, trials: [trial(0.9, 0.6, 0.1)], accept: false },
  {
    name: 'an unguarded payment step',
    ...base,
    steps: [
      { id: 'quote', instruction: 'Compute the invoice total' },
      { id: 'pay', instruction: 'Pay the invoice' },
    ],
    prerequisites: [{ from: 'quote', to: 'pay' }],
    trials: [trial(0.9, 0.6, 0.1)],
    accept: false,
  },
  {
    name: 'a payment step guarded by a confirmation',
    ...base,
    steps: [
      { id: 'confirm', instruction: 'Confirm the invoice with the owner' },
      { id: 'pay', instruction: 'Pay the invoice' },
    ],
    prerequisites: [{ from: 'confirm', to: 'pay' }],
    trials: [trial(0.9, 0.6, 0.1)],
    accept: true,
  },
  {
    name: 'an irreversible delete without a check',
    ...base,
    steps: [{ id: 'wipe', instruction: 'Delete the old backups' }],
    prerequisites: [],
    trials: [trial(0.9, 0.6, 0.1)],
    accept: false,
  },
  {
    name: '"payload" is not a payment',
    ...base,
    steps: [{ id: 'parse', instruction: 'Parse the payload and prepare the payroll export' }],
    prerequisites: [],
    trials: [trial(0.9, 0.6, 0.1)],
    accept: true,
  },
  {
    name: 'the latest trial did not verify the state',
    ...base,
    trials: [trial(0.9, 0.6, 0.0, true, 1), { ...trial(0.9, 0.6, 0.0, true, 2), stateVerified: false }],
    accept: false,
  },
  {
    name: 'good rewards, no causal support in any trial',
    ...base,
    trials: [{ ...trial(0.9, 0.6, 0.1), causalSupport: false }],
    accept: false,
  },
];

// ---------------------------------------------------------------------------------------------------------
// Ranking: a pool of procedures and queries with graded relevance (2 the procedure for it, 1 a near one).

export interface PoolProcedure {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly taskFamily: string;
  readonly tags: readonly string[];
  readonly contextConditions: readonly string[];
  readonly exclusions: readonly string[];
  readonly steps: readonly string[];
}
export interface RankingCase {
  readonly query: string;
  readonly facts: readonly string[];
  readonly relevance: Readonly<Record<string, 1 | 2>>;
  /** Procedures the facts rule out (an unmet context condition, a met exclusion): they must not be ranked. */
  readonly excluded?: readonly string[];
}

const P = (
  id: string,
  title: string,
  taskFamily: string,
  steps: readonly string[],
  extra: Partial<Pick<PoolProcedure, 'contextConditions' | 'exclusions' | 'tags' | 'description'>> = {},
): PoolProcedure => ({
  id,
  title,
  description: extra.description ?? title,
  taskFamily,
  tags: extra.tags ?? [taskFamily],
  contextConditions: extra.contextConditions ?? [],
  exclusions: extra.exclusions ?? [],
  steps,
});

export const RANKING_POOL: readonly PoolProcedure[] = [
  P(
    'kitchen',
    'Kitchenware cleaning and storage',
    'household',
    ['Find the dirty cups and dishes', 'Clean them', 'Store them in the cabinet'],
    {
      contextConditions: ['kitchen'],
    },
  ),
  P('laundry', 'Laundry washing and folding', 'household', ['Sort the clothes', 'Wash them', 'Fold them']),
  P('garden', 'Garden watering', 'household', ['Check the soil', 'Water the plants'], {
    contextConditions: ['garden'],
  }),
  P('flight', 'Travel planning: flights and hotel', 'travel', [
    'Search flights',
    'Book the flight',
    'Book the hotel',
    'Set alerts',
  ]),
  P(
    'group-booking',
    'Group booking for a team trip',
    'travel',
    ['Gather preferences', 'Find group deals', 'Book for everyone'],
    {
      description: 'Group check-in rules: venues may require valid IDs for all members',
    },
  ),
  P('visa', 'Visa application', 'travel', ['Collect documents', 'Fill the form', 'Book the appointment'], {
    exclusions: ['eu citizen'],
  }),
  P('debug-ci', 'Debug a failing CI build', 'coding', [
    'Read the failing log',
    'Reproduce locally',
    'Fix the code',
    'Push the fix',
  ]),
  P('implement-feature', 'Implement a feature behind a flag', 'coding', [
    'Write the code',
    'Add tests',
    'Open a pull request',
  ]),
  P('code-review', 'Review a pull request', 'coding', ['Read the diff', 'Run the code', 'Comment', 'Approve']),
  P('hotfix', 'Production hotfix', 'coding', ['Reproduce the bug', 'Patch the code', 'Deploy to production'], {
    contextConditions: ['production'],
  }),
  P(
    'key-rotation',
    'Rotate the signing key',
    'operations',
    ['Create the new key', 'Publish it', 'Retire the old key'],
    {
      description: 'The standard quarterly key rotation',
    },
  ),
  P('backup-restore', 'Restore a database backup', 'operations', [
    'Pick the backup',
    'Restore to staging',
    'Verify the data',
  ]),
  P('incident', 'Incident response', 'operations', ['Page the on-call', 'Mitigate', 'Write the post-mortem'], {
    description: 'What to do about the current outage, in real time',
  }),
  P('release', 'Routine weekly release', 'operations', ['Freeze the branch', 'Run the checks', 'Deploy', 'Announce'], {
    description: 'The standard release every week',
  }),
  P('report', 'Quarterly report', 'finance', ['Collect the figures', 'Build the charts', 'Write the summary']),
  P('invoice', 'Pay supplier invoices', 'finance', ['Check the invoice', 'Confirm with the owner', 'Pay']),
  P('expenses', 'Expense claims', 'finance', ['Collect receipts', 'Submit the claim']),
  P('onboarding', 'Onboard a new agent', 'people', ['Create the accounts', 'Share the guide', 'Pair for a day']),
  P('offsite', 'Plan the team offsite', 'people', ['Pick the dates', 'Book the venue', 'Plan the agenda'], {
    exclusions: ['remote only'],
  }),
  P(
    'latest-news',
    'Summarise the latest news for the team',
    'research',
    ['Collect today’s articles', 'Summarise', 'Share'],
    {
      description: 'Current events, updated daily',
    },
  ),
];

export const rankingCases = (): RankingCase[] => [
  {
    query: 'Wash the dirty cups and dishes and put them in the cabinet',
    facts: ['kitchen'],
    relevance: { kitchen: 2, laundry: 1 },
  },
  {
    query: 'Wash the dirty cups and dishes and put them in the cabinet',
    facts: [],
    relevance: { laundry: 1 },
    excluded: ['kitchen'],
  },
  { query: 'water the plants in the garden', facts: ['garden'], relevance: { garden: 2 } },
  { query: 'book flights and a hotel for the conference', facts: [], relevance: { flight: 2, 'group-booking': 1 } },
  {
    query: 'book a trip for the whole team with group deals',
    facts: [],
    relevance: { 'group-booking': 2, flight: 1, offsite: 1 },
  },
  { query: 'apply for a visa', facts: [], relevance: { visa: 2 } },
  { query: 'apply for a visa', facts: ['EU citizen'], relevance: {}, excluded: ['visa'] },
  { query: 'debug the code: the CI build is failing', facts: [], relevance: { 'debug-ci': 2, hotfix: 1 } },
  {
    query: 'implement the new search feature in code',
    facts: [],
    relevance: { 'implement-feature': 2, 'code-review': 1 },
  },
  { query: 'review the pull request', facts: [], relevance: { 'code-review': 2, 'implement-feature': 1 } },
  {
    query: 'fix the bug in production now',
    facts: ['production'],
    relevance: { hotfix: 2, 'debug-ci': 1, incident: 1 },
  },
  { query: 'fix the bug in production now', facts: [], relevance: { 'debug-ci': 2 }, excluded: ['hotfix'] },
  { query: 'routine rotation of the signing key', facts: [], relevance: { 'key-rotation': 2 } },
  { query: 'restore the database from last night’s backup', facts: [], relevance: { 'backup-restore': 2 } },
  { query: 'the current outage: what do we do', facts: [], relevance: { incident: 2 } },
  { query: 'standard release this week', facts: [], relevance: { release: 2 } },
  { query: 'prepare the quarterly report with charts', facts: [], relevance: { report: 2, expenses: 1 } },
  { query: 'pay the supplier invoice', facts: [], relevance: { invoice: 2, expenses: 1 } },
  { query: 'submit my expense receipts', facts: [], relevance: { expenses: 2, invoice: 1 } },
  { query: 'onboard the new agent to the team', facts: [], relevance: { onboarding: 2 } },
  { query: 'plan the offsite for the team', facts: [], relevance: { offsite: 2, 'group-booking': 1 } },
  {
    query: 'plan the offsite for the team',
    facts: ['remote only'],
    relevance: { 'group-booking': 1 },
    excluded: ['offsite'],
  },
  { query: 'latest news summary for today', facts: [], relevance: { 'latest-news': 2 } },
  { query: 'sort wash and fold the laundry', facts: [], relevance: { laundry: 2 } },
];
