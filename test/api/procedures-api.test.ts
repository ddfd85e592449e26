import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi, tokenLookup } from '../support/local-api.ts';

/*
 * Reference 001's Figure 3 end to end through the HTTP API: a manager and three agents clean and store the
 * kitchenware; B's apple detour is flagged as plan (and goal) divergence and corrected in B's feed, C's storage
 * before verified cleaning is refused as an unmet prerequisite, and the procedure moves from v1.0 to v1.1 with
 * the new warnings, through a candidate, a trial and a promotion — both versions in its history.
 */

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
type RecordBody<Content> = Json & { id: string; revision: number; etag: string; content: Content };
type Procedure = RecordBody<{
  version: string;
  status: string;
  warnings: { text: string }[];
  steps: { id: string }[];
  change: { kind: string; summaryScore?: number };
}>;
type Task = RecordBody<{
  status: string;
  nodes: { id: string; status: string; assignee: string }[];
  candidateId?: string;
}>;

const PROJECT = 'kitchen';
const base = `/v1/projects/${PROJECT}`;

const KITCHEN_PROCEDURE = {
  metadata: {
    title: 'Kitchenware cleaning and storage',
    description: 'Find the dirty cups and dishes, clean them, hand them over and store them in the cabinet',
    taskFamily: 'household cleaning',
    tags: ['household', 'cleaning'],
    contextConditions: ['kitchen'],
    exclusions: ['no running water'],
  },
  steps: [
    { id: 'find-cups', instruction: 'Agent A searches for the dirty cups' },
    { id: 'find-dishes', instruction: 'Agent B searches for the dirty dishes' },
    { id: 'prepare-cabinet', instruction: 'Agent C inspects and prepares the cabinet' },
    { id: 'clean-cups', instruction: 'Agent A cleans the cups' },
    { id: 'clean-dishes', instruction: 'Agent B cleans the dishes' },
    { id: 'store', instruction: 'Agent C stores the cleaned items and completes the final inspection' },
  ],
  prerequisites: [
    { from: 'find-cups', to: 'clean-cups' },
    { from: 'find-dishes', to: 'clean-dishes' },
    { from: 'clean-cups', to: 'store' },
    { from: 'clean-dishes', to: 'store' },
    { from: 'prepare-cabinet', to: 'store' },
  ],
  warnings: [{ text: 'Items must be cleaned before they can be stored.', trigger: 'storage', evidence: [] }],
};

const ASSIGNMENTS = {
  'find-cups': 'agent-a',
  'clean-cups': 'agent-a',
  'find-dishes': 'agent-b',
  'clean-dishes': 'agent-b',
  'prepare-cabinet': 'agent-c',
  store: 'agent-c',
};

const LESSONS = [
  {
    text: 'Seeing unrelated items does not mean obtaining a new task; record them as observations.',
    trigger: 'unrelated item',
  },
  {
    text: 'Location status may be outdated: use verifiable environmental data to decide positions.',
    trigger: 'item location',
  },
  { text: '"Found" does not mean "cleaned".', trigger: 'handover' },
  { text: 'After correcting a deviation, resume from the last verified checkpoint.', trigger: 'realignment' },
];

describe('API: procedural memory, the kitchen case (reference 001 Figure 3)', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  const token = tokenLookup(tokens);

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.manager = await api.token({ sub: 'maya', groups: [`project:${PROJECT}:manager`] });
    for (const agent of ['agent-a', 'agent-b', 'agent-c', 'agent-d'])
      tokens[agent] = await api.token({ sub: agent, groups: [`project:${PROJECT}:member`] });
    tokens.outsider = await api.token({ sub: 'otto', groups: ['project:elsewhere:manager'] });
    tokens.otherTenant = await api.token({ tenant: 'globex', sub: 'maya', groups: [`project:${PROJECT}:manager`] });
  }, 60_000);

  afterAll(async () => {
    await api.stop();
  });

  const call = <T = Json>(method: string, path: string, as: string, body?: unknown, ifMatch?: string) =>
    api.request<T & Json>(method, `${base}${path}`, {
      token: token(as),
      ...(body !== undefined && { body }),
      ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
    });
  const entry = (task: string, as: string, node: string, outcome: string, fields: Record<string, string> = {}) =>
    call<{ entry: RecordBody<Json>; task: Task }>('POST', `/tasks/${task}/records`, as, { node, outcome, ...fields });
  /** The assignee starts and finishes the node; the manager verifies it. */
  const runNode = async (task: string, as: string, node: string, result: string) => {
    expect((await entry(task, as, node, 'started')).status).toBe(201);
    expect((await entry(task, as, node, 'done', { result })).status).toBe(201);
    expect((await entry(task, 'manager', node, 'verified')).status).toBe(201);
  };

  let procedure: Procedure;
  let task: Task;

  it('creates v1.0 and retrieves it for the task by its context, with the weights shown', async () => {
    // Act
    const createdProcedure = await call<Procedure>('POST', '/procedures', 'manager', KITCHEN_PROCEDURE);
    procedure = createdProcedure.body;
    await call('POST', '/procedures', 'manager', {
      ...KITCHEN_PROCEDURE,
      metadata: { ...KITCHEN_PROCEDURE.metadata, title: 'Garden watering', contextConditions: ['garden'] },
    });
    const retrieval = await call<{
      hits: { procedure: Procedure; features: Json }[];
      weights: Json;
      candidates: number;
    }>('POST', '/procedures/retrieve', 'agent-a', {
      query: 'Wash the dirty cups and dishes in the kitchen and put them in the cabinet',
      facts: ['Kitchen'],
    });

    // Assess
    expect(createdProcedure.status).toBe(201);
    expect(procedure.content.version).toBe('1.0');
    expect(retrieval.status).toBe(200);
    expect(retrieval.body.candidates).toBe(1);
    expect(retrieval.body.hits.map((hit) => hit.procedure.id)).toEqual([procedure.id]);
    expect(retrieval.body.weights).toMatchObject({ bm25: 0.5, vector: 0.5, adaptive: true });
    expect(Object.keys(retrieval.body.hits[0]?.features ?? {}).sort()).toEqual(['bm25', 'bm25Raw', 'similarity']);
  });

  it('instantiates the task graph from the procedure, steps bound to the three agents', async () => {
    const created = await call<Task>('POST', '/tasks', 'manager', {
      objective: 'Wash the dirty cups and dishes in the kitchen and put them in the cabinet',
      facts: ['kitchen'],
      fromProcedure: { procedureId: procedure.id, assignments: ASSIGNMENTS },
    });
    expect(created.status).toBe(201);
    task = created.body;
    expect(task.content.nodes.map((node) => [node.id, node.assignee, node.status])).toEqual(
      KITCHEN_PROCEDURE.steps.map((step) => [step.id, ASSIGNMENTS[step.id as keyof typeof ASSIGNMENTS], 'pending']),
    );
  });

  it("refuses C's storage before the cleaning is verified, naming the unmet prerequisites", async () => {
    // Prepare: A found the cups; C asks to store before anything is clean.
    await runNode(task.id, 'agent-a', 'find-cups', 'dirty cups on the countertop');

    // Act
    const early = await entry(task.id, 'agent-c', 'store', 'started', { action: 'Request the cup from agent A' });

    // Assess
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe('procedures.prerequisites_unmet');
    // clean-cups and clean-dishes, by their places in the task's nodes: an error never echoes ids.
    expect(early.body.error?.message).toContain('nodes[3], nodes[4]');
    const feed = await call<{ items: RecordBody<Json>[] }>('GET', `/tasks/${task.id}/records`, 'agent-c');
    expect(feed.body.items.some((item) => item.content.node === 'store')).toBe(false);
  });

  it("flags B's apple detour as plan and goal divergence and puts the correction in B's feed", async () => {
    // Prepare: B found no dishes but an apple, and plans to put it in the fridge.
    await entry(task.id, 'agent-b', 'find-dishes', 'started');
    await entry(task.id, 'agent-b', 'find-dishes', 'observed', {
      observation: "Couldn't find any dishes but saw an apple",
    });

    // Act
    const alignment = await call<{
      goal: { value: number; realign: boolean };
      plan: { value: number; realign: boolean; nodeEdits: string[] };
      realign: boolean;
      corrections: RecordBody<{ to: string; entry: string; observation: string }>[];
    }>('POST', `/tasks/${task.id}/alignment`, 'manager', {
      agent: 'agent-b',
      goal: 'Put the apple in the fridge',
      plan: {
        nodes: [
          { id: 'find-dishes', action: 'Agent B searches for the dirty dishes' },
          { id: 'fridge', action: 'Put the apple in the fridge' },
        ],
        edges: [{ from: 'find-dishes', to: 'fridge' }],
      },
    });

    // Assess: V̄ = {find-dishes, clean-dishes, fridge}, Ē = 2 edges; 2 node edits + 2 edge differences → 0.8
    expect(alignment.status).toBe(200);
    expect(alignment.body.plan).toMatchObject({ realign: true, nodeEdits: ['clean-dishes', 'fridge'] });
    expect(alignment.body.plan.value).toBeCloseTo(0.8, 12);
    expect(alignment.body.goal.realign).toBe(true);
    expect(alignment.body.goal.value).toBeGreaterThan(0.35);
    expect(alignment.body.realign).toBe(true);
    const feed = await call<{ items: RecordBody<{ to?: string; entry: string; observation: string }>[] }>(
      'GET',
      `/tasks/${task.id}/records?limit=100`,
      'agent-b',
    );
    const corrections = feed.body.items.filter((item) => item.content.entry === 'correction');
    expect(corrections.map((item) => item.content.to)).toEqual(['agent-b', 'agent-b']);
    expect(corrections[0]?.content.observation).toContain('Agent B searches for the dirty dishes');
  });

  it('keeps state conflicts unresolved across sources and flags them; tiers decide otherwise', async () => {
    // Prepare
    await call('POST', `/tasks/${task.id}/state`, 'agent-a', {
      key: 'cup-1.location',
      value: 'countertop',
      tier: 'tool_observation',
      source: 'camera-1',
      confidence: 0.9,
    });
    await call('POST', `/tasks/${task.id}/state`, 'agent-c', {
      key: 'cup-1.location',
      value: 'cabinet',
      tier: 'agent_inference',
      source: 'camera-1',
      confidence: 0.95,
    });

    // Act
    const state = await call<{ keys: Json[]; conflicts: string[] }>('GET', `/tasks/${task.id}/state`, 'agent-c');
    const inference = await call<RecordBody<{ source: string }>>('GET', `/tasks/${task.id}/records`, 'agent-c');

    // Assess: the tool observation outranks C's inference, and the key is in C_s.
    expect(state.body.keys).toEqual([
      expect.objectContaining({
        key: 'cup-1.location',
        status: 'resolved',
        value: 'countertop',
        tier: 'tool_observation',
      }),
    ]);
    expect(state.body.conflicts).toEqual(['cup-1.location']);
    expect(inference.status).toBe(200);
  });

  it('records an inference under its agent, whatever source the caller names', async () => {
    const evidence = await call<RecordBody<{ source: string; reportedBy: string }>>(
      'POST',
      `/tasks/${task.id}/state`,
      'agent-c',
      {
        key: 'cup-1.clean',
        value: true,
        tier: 'agent_inference',
        source: 'agent-a',
        confidence: 0.9,
      },
    );
    expect(evidence.status).toBe(201);
    expect(evidence.body.content).toMatchObject({ source: 'agent-c', reportedBy: 'agent-c' });
  });

  it('lets an agent write only against its own nodes, and only as itself', async () => {
    const asAnother = await entry(task.id, 'agent-b', 'clean-cups', 'started');
    const claimed = await call('POST', `/tasks/${task.id}/records`, 'agent-b', {
      node: 'find-dishes',
      agent: 'agent-a',
    });
    const verifiesOwn = await entry(task.id, 'agent-b', 'find-dishes', 'verified');
    expect(asAnother.status).toBe(403);
    expect(claimed.status).toBe(422);
    expect(verifiesOwn.status).toBe(403);
  });

  let candidateId: string;

  it('completes the task, keeping the verified structure as a candidate outside the pool', async () => {
    // Prepare: every node done and verified, in dependency order.
    await entry(task.id, 'agent-b', 'find-dishes', 'done', { result: 'dishes found in the sink' });
    await entry(task.id, 'manager', 'find-dishes', 'verified');
    await runNode(task.id, 'agent-c', 'prepare-cabinet', 'cabinet ready');
    await runNode(task.id, 'agent-a', 'clean-cups', 'cups clean');
    await runNode(task.id, 'agent-b', 'clean-dishes', 'dishes clean');
    await runNode(task.id, 'agent-c', 'store', 'stored and inspected');

    // Act
    const completion = await call<{
      task: Task;
      candidate: RecordBody<Json>;
      supported: { nodes: string[]; edges: number };
    }>('POST', `/tasks/${task.id}/complete`, 'manager', {
      outcome: 'completed',
      benefit: 0.4,
      cost: 0.1,
      causalConfidence: 0.8,
      safetyRisk: 0.1,
      lessons: LESSONS,
    });

    // Assess
    expect(completion.status).toBe(200);
    expect(completion.body.supported).toEqual({
      nodes: KITCHEN_PROCEDURE.steps.map((step) => step.id),
      edges: 5,
      unsupported: [],
    });
    expect(completion.body.candidate.content).toMatchObject({
      status: 'candidate',
      version: '1.1',
      base: { procedureId: procedure.id, revision: procedure.revision },
    });
    expect(completion.body.task.content.status).toBe('completed');
    candidateId = completion.body.candidate.id;
    const pool = await call<{ items: Procedure[] }>('GET', '/procedures?limit=100', 'manager');
    expect(pool.body.items.find((item) => item.id === procedure.id)?.content.version).toBe('1.0');
  });

  it('never promotes a candidate without trials', async () => {
    const refused = await call<{ decision: { accept: boolean; failedGates: string[]; meanNetBenefit: null } }>(
      'POST',
      `/candidates/${candidateId}/promote`,
      'manager',
      {},
    );
    expect(refused.status).toBe(200);
    expect(refused.body.decision).toMatchObject({ accept: false, meanNetBenefit: null });
    expect(refused.body.decision.failedGates).toContain('reproduction');
    const head = await call<Procedure>('GET', `/procedures/${procedure.id}`, 'manager');
    expect(head.body.revision).toBe(procedure.revision);
  });

  it('promotes after a qualifying trial: v1.1 with the new warnings, v1.0 kept in history; a second promotion changes nothing', async () => {
    // Prepare
    const trial = await call('POST', `/candidates/${candidateId}/trials`, 'manager', {
      candidateReward: 0.87,
      baselineReward: 0.67,
      cost: 0.05,
      stateVerified: true,
      causalSupport: true,
    });
    expect(trial.status).toBe(200);

    // Act: two promotions at once against the same head.
    const [first, second] = await Promise.all([
      call<{ procedure?: Procedure }>('POST', `/candidates/${candidateId}/promote`, 'manager', {}),
      call<{ procedure?: Procedure }>('POST', `/candidates/${candidateId}/promote`, 'manager', {}),
    ]);

    // Assess: exactly one advanced the head.
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const history = await call<{ items: Procedure[] }>('GET', `/procedures/${procedure.id}/history`, 'agent-a');
    expect(history.body.items.map((item) => item.content.version)).toEqual(['1.0', '1.1']);
    const current = history.body.items[1] as Procedure;
    expect(current.content.change).toMatchObject({ kind: 'promoted' });
    expect(current.content.change.summaryScore).toBeCloseTo(Math.min(1, 0.4 * 0.8 + 0.3 + 0.3 * 0.9), 12);
    expect(current.content.warnings.map((warning) => warning.text)).toEqual([
      'Items must be cleaned before they can be stored.',
      ...LESSONS.map((lesson) => lesson.text),
    ]);
  });

  it('answers 404 for everything of the project to a non-member, another tenant and a member outside the task', async () => {
    const paths = [
      `/procedures/${procedure.id}`,
      `/procedures/${procedure.id}/history`,
      `/tasks/${task.id}`,
      `/tasks/${task.id}/records`,
      `/tasks/${task.id}/state`,
      `/candidates/${candidateId}`,
    ];
    for (const as of ['outsider', 'otherTenant'])
      for (const path of paths) {
        const response = await call('GET', path, as);
        expect(response.status, `${as} ${path}`).toBe(404);
      }
    expect((await call('GET', '/procedures', 'outsider')).status).toBe(404);
    expect((await call('POST', '/procedures/retrieve', 'outsider', { query: 'kitchen' })).status).toBe(404);
    // Another tenant's project of the same name is a space of its own, and empty.
    const theirs = await call<{ items: unknown[] }>('GET', '/procedures', 'otherTenant');
    expect(theirs.body.items).toEqual([]);
    const theirRetrieval = await call<{ hits: unknown[] }>('POST', '/procedures/retrieve', 'otherTenant', {
      query: 'kitchen cups',
      facts: ['kitchen'],
    });
    expect(theirRetrieval.body.hits).toEqual([]);
    for (const path of [`/tasks/${task.id}`, `/tasks/${task.id}/records`, `/tasks/${task.id}/state`])
      expect((await call('GET', path, 'agent-d')).status, path).toBe(404);
  });
});
