import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, LocalApi, tokenLookup } from '../support/local-api.ts';

/*
 * The rest of procedural memory through the HTTP API: retrieval feedback, replanning, graph refusals, stale and
 * refused promotions, refine / specialise / retire, and procedures found by POST /v1/search.
 */

type Json = Record<string, unknown> & {
  error?: { code: string; message: string; issues?: { path: string; message: string }[] };
};
type RecordBody<Content> = Json & { id: string; revision: number; etag: string; content: Content };
type Procedure = RecordBody<{
  version: string;
  status: string;
  specializes?: { procedureId: string; revision: number };
}>;
type Task = RecordBody<{ plan: number; nodes: { id: string; action: string; status: string }[] }>;

const PROJECT = 'p-ops';
const base = `/v1/projects/${PROJECT}`;

const procedureBody = (title: string, steps = [{ id: 'prepare', instruction: 'Prepare the release' }]) => ({
  metadata: { title, description: `${title}, step by step`, taskFamily: 'operations' },
  steps,
  prerequisites: [],
});

describe('API: procedures, lifecycle and refusals', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  const token = tokenLookup(tokens);

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.manager = await api.token({ sub: 'mona', groups: [`project:${PROJECT}:manager`] });
    tokens.agent = await api.token({ sub: 'ada', groups: [`project:${PROJECT}:member`] });
    tokens.neighbour = await api.token({ sub: 'nell', groups: ['project:p-other:manager'] });
  }, 60_000);

  afterAll(async () => {
    await api.stop();
  });

  const call = <T = Json>(method: string, path: string, as: string, body?: unknown, ifMatch?: string) =>
    api.request<T & Json>(method, path.startsWith('/v1/') ? path : `${base}${path}`, {
      token: token(as),
      ...(body !== undefined && { body }),
      ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
    });

  it('moves the weights by one feedback step and shows the reference values', async () => {
    // Act
    const routine = await call<{ weights: { bm25: number; vector: number } }>('POST', '/procedures/retrieve', 'agent', {
      query: 'routine task',
    });
    const debug = await call<{ weights: { bm25: number; vector: number } }>('POST', '/procedures/retrieve', 'agent', {
      query: 'debug the code',
    });
    const feedback = await call<{ before: { bm25: number }; after: { bm25: number; vector: number } }>(
      'POST',
      '/procedures/feedback',
      'agent',
      { query: 'routine task', served: 'bm25' },
    );
    const afterwards = await call<{ weights: { bm25: number } }>('POST', '/procedures/retrieve', 'agent', {
      query: 'routine task',
    });
    const fixed = await call<{ weights: { bm25: number } }>('POST', '/procedures/retrieve', 'agent', {
      query: 'routine task',
      adaptive: false,
    });

    // Assess
    expect(routine.body.weights.bm25).toBeCloseTo(0.6457, 4);
    expect(debug.body.weights.vector).toBeCloseTo(0.7311, 4);
    expect(feedback.status).toBe(200);
    expect(feedback.body.before.bm25).toBeCloseTo(0.6457, 4);
    expect(feedback.body.after.bm25).toBeCloseTo(0.6774, 4);
    expect(afterwards.body.weights.bm25).toBeCloseTo(feedback.body.after.bm25, 12);
    expect(fixed.body.weights.bm25).toBe(0.5);
  });

  it('refuses a cycle, a self-loop and a duplicate edge, naming the steps by place', async () => {
    const steps = [
      { id: 'a', instruction: 'First' },
      { id: 'b', instruction: 'Second' },
    ];
    const cycle = await call('POST', '/procedures', 'manager', {
      ...procedureBody('Cyclic', steps),
      prerequisites: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
      ],
    });
    const loop = await call('POST', '/procedures', 'manager', {
      ...procedureBody('Looped', steps),
      prerequisites: [{ from: 'a', to: 'a' }],
    });
    const twice = await call('POST', '/procedures', 'manager', {
      ...procedureBody('Twice', steps),
      prerequisites: [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'b' },
      ],
    });
    expect([cycle.status, loop.status, twice.status]).toEqual([422, 422, 422]);
    expect(cycle.body.error?.issues?.map((issue) => issue.message)).toContain(
      'the prerequisites form a cycle: steps[0] → steps[1] → steps[0]',
    );
    expect(loop.body.error?.issues?.map((issue) => issue.message)).toContain('steps[0] cannot be its own prerequisite');
    expect(twice.body.error?.issues?.map((issue) => issue.message)).toContain(
      'the prerequisite steps[0] → steps[1] is listed twice',
    );
  });

  it('replans keeping unchanged ids and their status, new steps new ids, downstream of a change stale', async () => {
    // Prepare: a → b → c, a and b verified.
    const created = await call<Task>('POST', '/tasks', 'manager', {
      objective: 'Ship the release',
      plan: {
        nodes: [
          { id: 'a', action: 'Build', assignee: 'ada' },
          { id: 'b', action: 'Test', assignee: 'ada' },
          { id: 'c', action: 'Deploy', assignee: 'ada' },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
        ],
      },
    });
    const id = created.body.id;
    for (const node of ['a', 'b']) {
      await call('POST', `/tasks/${id}/records`, 'agent', { node, outcome: 'started' });
      await call('POST', `/tasks/${id}/records`, 'agent', { node, outcome: 'done' });
      await call('POST', `/tasks/${id}/records`, 'manager', { node, outcome: 'verified' });
    }
    const before = await call<Task>('GET', `/tasks/${id}`, 'manager');

    // Act: a's action changes; a new step (by place) goes between b and c.
    const replanned = await call<Task>(
      'PUT',
      `/tasks/${id}/plan`,
      'manager',
      {
        nodes: [
          { id: 'a', action: 'Build with the new compiler', assignee: 'ada' },
          { id: 'b', action: 'Test', assignee: 'ada' },
          { action: 'Scan the image', assignee: 'ada' },
          { id: 'c', action: 'Deploy', assignee: 'ada' },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: '#2' },
          { from: '#2', to: 'c' },
        ],
      },
      before.body.etag,
    );
    const unchanged = await call('PUT', `/tasks/${id}/plan`, 'manager', { nodes: [], edges: [] }, before.body.etag);

    // Assess
    expect(replanned.status).toBe(200);
    const nodes = replanned.body.content.nodes;
    expect(nodes.map((node) => node.id).slice(0, 2)).toEqual(['a', 'b']);
    expect(nodes[2]?.id).toMatch(/^n[0-9A-Z]{26}$/);
    expect(nodes.map((node) => node.status)).toEqual(['pending', 'stale', 'pending', 'pending']);
    expect(replanned.body.content.plan).toBe(2);
    expect(unchanged.status).toBe(422);
    const stale = await call(
      'PUT',
      `/tasks/${id}/plan`,
      'manager',
      { nodes: [{ id: 'a', action: 'x', assignee: 'ada' }], edges: [] },
      before.body.etag,
    );
    expect(stale.status).toBe(412);
    const byAgent = await call(
      'PUT',
      `/tasks/${id}/plan`,
      'agent',
      { nodes: [{ id: 'a', action: 'x', assignee: 'ada' }], edges: [] },
      replanned.body.etag,
    );
    expect(byAgent.status).toBe(403);
  });

  it('refines, specialises and retires, keeping every revision; a retired procedure leaves retrieval', async () => {
    const created = await call<Procedure>('POST', '/procedures', 'manager', procedureBody('Release checklist'));
    const refined = await call<Procedure>(
      'POST',
      `/procedures/${created.body.id}/refine`,
      'manager',
      procedureBody('Release checklist', [
        { id: 'prepare', instruction: 'Prepare the release' },
        { id: 'verify', instruction: 'Verify the release notes' },
      ]),
      created.body.etag,
    );
    const backwards = await call(
      'POST',
      `/procedures/${created.body.id}/refine`,
      'manager',
      { ...procedureBody('Release checklist'), version: '1.0' },
      refined.body.etag,
    );
    const variant = await call<Procedure>(
      'POST',
      `/procedures/${created.body.id}/specialize`,
      'manager',
      procedureBody('Release checklist for hotfixes'),
    );
    const retired = await call<Procedure>(
      'POST',
      `/procedures/${created.body.id}/retire`,
      'manager',
      undefined,
      refined.body.etag,
    );
    const again = await call(
      'POST',
      `/procedures/${created.body.id}/refine`,
      'manager',
      procedureBody('x'),
      retired.body.etag,
    );
    const retrieval = await call<{ hits: { procedure: Procedure }[] }>('POST', '/procedures/retrieve', 'agent', {
      query: 'release checklist',
      k: 20,
    });
    const history = await call<{ items: Procedure[] }>('GET', `/procedures/${created.body.id}/history`, 'agent');

    expect(refined.body.content.version).toBe('1.1');
    expect(backwards.status).toBe(422);
    expect(variant.status).toBe(201);
    expect(variant.body.content.specializes).toEqual({ procedureId: created.body.id, revision: 2 });
    expect(retired.body.content.status).toBe('retired');
    expect(again.status).toBe(409);
    expect(retrieval.body.hits.map((hit) => hit.procedure.id)).not.toContain(created.body.id);
    expect(retrieval.body.hits.map((hit) => hit.procedure.id)).toContain(variant.body.id);
    expect(history.body.items.map((item) => [item.content.version, item.content.status])).toEqual([
      ['1.0', 'active'],
      ['1.1', 'active'],
      ['1.1', 'retired'],
    ]);
  });

  it('leaves the head unchanged on a stale promotion, and never promotes on failed trials', async () => {
    // Prepare: a one-step procedure, a task from it, completed into a candidate.
    const procedure = await call<Procedure>('POST', '/procedures', 'manager', procedureBody('Rotate the signing key'));
    const task = await call<Task>('POST', '/tasks', 'manager', {
      objective: 'Rotate the signing key',
      fromProcedure: { procedureId: procedure.body.id, assignments: { prepare: 'ada' } },
    });
    await call('POST', `/tasks/${task.body.id}/records`, 'agent', { node: 'prepare', outcome: 'started' });
    await call('POST', `/tasks/${task.body.id}/records`, 'agent', { node: 'prepare', outcome: 'done' });
    await call('POST', `/tasks/${task.body.id}/records`, 'manager', { node: 'prepare', outcome: 'verified' });
    const completion = await call<{ candidate: RecordBody<Json> }>(
      'POST',
      `/tasks/${task.body.id}/complete`,
      'manager',
      {
        outcome: 'completed',
        benefit: 1,
        causalConfidence: 0.9,
      },
    );
    const candidate = completion.body.candidate.id;
    await call('POST', `/candidates/${candidate}/trials`, 'manager', {
      candidateReward: 0.2,
      baselineReward: 0.6,
      cost: 0.1,
      stateVerified: false,
      causalSupport: false,
    });

    // Act
    const failedOnly = await call<{ decision: { accept: boolean; failedGates: string[] } }>(
      'POST',
      `/candidates/${candidate}/promote`,
      'manager',
      {},
    );
    await call('POST', `/candidates/${candidate}/trials`, 'manager', {
      candidateReward: 0.95,
      baselineReward: 0.2,
      cost: 0,
      stateVerified: true,
      causalSupport: true,
    });
    const head = await call<Procedure>('GET', `/procedures/${procedure.body.id}`, 'manager');
    await call(
      'POST',
      `/procedures/${procedure.body.id}/refine`,
      'manager',
      procedureBody('Rotate the signing key, refined'),
      head.body.etag,
    );
    const moved = await call<Procedure>('GET', `/procedures/${procedure.body.id}`, 'manager');
    const stale = await call('POST', `/candidates/${candidate}/promote`, 'manager', {});
    const after = await call<Procedure>('GET', `/procedures/${procedure.body.id}`, 'manager');

    // Assess
    expect(failedOnly.body.decision).toMatchObject({ accept: false });
    expect(failedOnly.body.decision.failedGates).toEqual(['state', 'reproduction', 'net_benefit']);
    expect(stale.status).toBe(409);
    expect(stale.body.error?.code).toBe('procedures.stale_candidate');
    expect(after.body.revision).toBe(moved.body.revision);
    expect(after.body.content.version).toBe('1.1');
  });

  it('answers a non-member 404 even while the pool is cached for the members', async () => {
    await call('POST', '/procedures', 'manager', procedureBody('Cached pool'));
    const warm = await call<{ candidates: number }>('POST', '/procedures/retrieve', 'agent', { query: 'cached pool' });
    const outside = await call('POST', '/procedures/retrieve', 'neighbour', { query: 'cached pool' });
    const feedback = await call('POST', '/procedures/feedback', 'neighbour', { query: 'cached pool', served: 'bm25' });
    expect(warm.body.candidates).toBeGreaterThan(0);
    expect(outside.status).toBe(404);
    expect(feedback.status).toBe(404);
  });

  it('finds procedures through POST /v1/search in the project', async () => {
    await call('POST', '/procedures', 'manager', procedureBody('Restart the billing service'));
    const found = await eventually(async () => {
      const response = await call<{ hits: { kind: string; record: Procedure }[] }>('POST', '/v1/search', 'agent', {
        query: 'restart billing',
        project: PROJECT,
        kinds: ['procedure'],
        strategy: 'keyword',
      });
      return response.body.hits.length > 0 ? response.body.hits : undefined;
    });
    expect(found[0]?.kind).toBe('procedure');
    expect(found[0]?.record.content).toMatchObject({ status: 'active' });
  });
});
