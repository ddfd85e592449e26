/**
 * The team-coordination workload (reference 001 at reference 002's scale: 250 agents, 1,000 concurrent tasks):
 * each tenant has one project with a manager and its agents, a pool of procedures and open tasks of four nodes
 * assigned round-robin to the project's agents. Agents write blackboard entries against their own nodes and
 * state evidence, read their tasks, feeds and resolved state, and retrieve procedures.
 *
 * Seeding creates every project's procedures and tasks as its manager would. The tokens carry the project
 * groups, minted into the bench's issuer (identities.ts).
 */
import { mintLocalToken } from '../../lambdas/local/local-issuer.ts';
import { seededRandom } from '../stats.ts';
import { forEachConcurrently } from './concurrently.ts';
import { type HttpClient, outcomeOf } from './http-client.ts';
import type { SeedResult, SessionWorkload } from './load-session.ts';
import type { Outcome } from './open-loop-driver.ts';

/** The API's operationIds, which are also the keys of the server's cost report. */
export const PROCEDURES_OPERATIONS = [
  'appendTaskRecord',
  'addTaskEvidence',
  'getTask',
  'listTaskRecords',
  'getTaskState',
  'retrieveProcedures',
] as const;
export type ProceduresOperation = (typeof PROCEDURES_OPERATIONS)[number];

export const PROCEDURES_OPERATION_KIND: Readonly<Record<ProceduresOperation, 'read' | 'write'>> = {
  appendTaskRecord: 'write',
  addTaskEvidence: 'write',
  getTask: 'read',
  listTaskRecords: 'read',
  getTaskState: 'read',
  retrieveProcedures: 'read',
};

/** Writes are 45 % of the mix: the blackboard is what a running team mostly does. */
export const PROCEDURES_MIX: Readonly<Record<ProceduresOperation, number>> = {
  appendTaskRecord: 0.35,
  addTaskEvidence: 0.1,
  getTask: 0.2,
  listTaskRecords: 0.15,
  getTaskState: 0.1,
  retrieveProcedures: 0.1,
};

export const PROJECT = 'bench-team';
export const NODES_PER_TASK = 4;

export interface TeamShape {
  readonly tenants: number;
  readonly agents: number;
  readonly tasks: number;
  readonly proceduresPerProject: number;
}

interface Agent {
  readonly tenant: number;
  readonly sub: string;
  readonly authorization: string;
  /** The nodes assigned to it: task id and node id. */
  readonly nodes: { task: string; node: string }[];
}

interface Team {
  readonly manager: string;
  readonly agents: Agent[];
}

const TOKEN_TTL_SECONDS = 4 * 3600;
const tenantOf = (index: number) => `bench-tenant-${index}`;

const ACTIONS = ['Collect the inputs', 'Run the checks', 'Apply the change', 'Report the outcome'];
const TOPICS = ['release', 'migration', 'incident', 'rotation', 'backup', 'onboarding', 'audit', 'deployment'];
const VERBS = ['Prepare', 'Verify', 'Rotate', 'Restore', 'Review', 'Schedule', 'Deploy', 'Document'];
const OBSERVATIONS = [
  'The staging run finished without warnings.',
  'Two checks are still pending on the dashboard.',
  'The change window opens at 14:00.',
  'The previous attempt left a lock file behind.',
];

/** A procedure of the pool: a title and steps made from a verb and a topic, so retrieval has words to rank. */
export const benchProcedure = (index: number) => {
  const verb = VERBS[index % VERBS.length] as string;
  const topic = TOPICS[Math.floor(index / VERBS.length) % TOPICS.length] as string;
  return {
    metadata: {
      title: `${verb} the ${topic} (${index})`,
      description: `How the team does a ${topic}: ${verb.toLowerCase()} it step by step`,
      taskFamily: topic,
      tags: [topic],
      contextConditions: index % 5 === 0 ? ['production'] : [],
    },
    steps: ACTIONS.map((action, step) => ({ id: `s${step}`, instruction: `${action} for the ${topic}` })),
    prerequisites: [
      { from: 's0', to: 's1' },
      { from: 's1', to: 's2' },
      { from: 's2', to: 's3' },
    ],
  };
};

export const mintTeams = async (issuerDir: string, shape: TeamShape): Promise<Team[]> => {
  const teams: Team[] = [];
  const groups = [`project:${PROJECT}:member`];
  for (let tenant = 0; tenant < shape.tenants; tenant++) {
    const manager = await mintLocalToken(issuerDir, {
      tenant: tenantOf(tenant),
      sub: 'bench-manager',
      ttlSeconds: TOKEN_TTL_SECONDS,
      groups: [`project:${PROJECT}:manager`],
    });
    teams.push({ manager: `Bearer ${manager}`, agents: [] });
  }
  for (let index = 0; index < shape.agents; index++) {
    const tenant = index % shape.tenants;
    const sub = `team-agent-${String(index).padStart(4, '0')}`;
    const token = await mintLocalToken(issuerDir, {
      tenant: tenantOf(tenant),
      sub,
      ttlSeconds: TOKEN_TTL_SECONDS,
      groups,
    });
    teams[tenant]?.agents.push({ tenant, sub, authorization: `Bearer ${token}`, nodes: [] });
  }
  return teams;
};

export class ProceduresWorkload implements SessionWorkload<ProceduresOperation> {
  readonly operations = PROCEDURES_OPERATIONS;
  readonly #teams: Team[];
  readonly #shape: TeamShape;
  readonly #random: () => number;
  readonly #cumulativeMix: [ProceduresOperation, number][];
  #serial = 0;

  constructor(teams: readonly Team[], shape: TeamShape, seed: number) {
    // Each session gets fresh node lists: the server it seeds is new.
    this.#teams = teams.map((team) => ({ ...team, agents: team.agents.map((agent) => ({ ...agent, nodes: [] })) }));
    this.#shape = shape;
    this.#random = seededRandom(0x7a5c + seed);
    let total = 0;
    this.#cumulativeMix = PROCEDURES_OPERATIONS.map((operation) => {
      total += PROCEDURES_MIX[operation];
      return [operation, total];
    });
  }

  async seed(client: HttpClient): Promise<SeedResult> {
    const procedureJobs = this.#teams.flatMap((team) =>
      Array.from({ length: this.#shape.proceduresPerProject }, (_, index) => ({ team, index })),
    );
    let failures = 0;
    await forEachConcurrently(procedureJobs, 8, async ({ team, index }) => {
      const response = await client.send({
        method: 'POST',
        path: `/v1/projects/${PROJECT}/procedures`,
        headers: { authorization: team.manager },
        body: benchProcedure(index),
      });
      if (response.status !== 201) failures += 1;
    });
    const tasksPerTeam = Math.ceil(this.#shape.tasks / this.#teams.length);
    const taskJobs = this.#teams.flatMap((team) =>
      Array.from({ length: tasksPerTeam }, (_, index) => ({ team, index })),
    );
    await forEachConcurrently(taskJobs, 8, async ({ team, index }) => {
      const assignees = Array.from(
        { length: NODES_PER_TASK },
        (_, node) => team.agents[(index * NODES_PER_TASK + node) % team.agents.length] as Agent,
      );
      const response = await client.send({
        method: 'POST',
        path: `/v1/projects/${PROJECT}/tasks`,
        headers: { authorization: team.manager },
        body: {
          objective: `Run the ${TOPICS[index % TOPICS.length]} for batch ${index}`,
          plan: {
            nodes: assignees.map((agent, node) => ({ id: `n${node}`, action: ACTIONS[node], assignee: agent.sub })),
            edges: [
              { from: 'n0', to: 'n1' },
              { from: 'n1', to: 'n2' },
              { from: 'n2', to: 'n3' },
            ],
          },
        },
      });
      if (response.status !== 201) {
        failures += 1;
        return;
      }
      const task = (JSON.parse(response.body) as { id: string }).id;
      assignees.forEach((agent, node) => {
        agent.nodes.push({ task, node: `n${node}` });
      });
    });
    if (failures > 0) throw new Error(`Seeding failed: ${failures} creates did not return 201`);
    return {
      requests: { createProcedure: procedureJobs.length, createTask: taskJobs.length },
      description: `${this.#teams.length} projects, ${procedureJobs.length} procedures, ${taskJobs.length} open tasks, ${this.#teams.reduce((sum, team) => sum + team.agents.length, 0)} agents`,
    };
  }

  issue(client: HttpClient): Promise<Outcome> {
    const roll = this.#random();
    return this.issueOperation(client, this.#cumulativeMix.find(([, upTo]) => roll < upTo)?.[0] ?? 'getTask');
  }

  async issueOperation(client: HttpClient, operation: ProceduresOperation): Promise<Outcome> {
    const agent = this.#anyAgent();
    const assignment = this.#pick(agent.nodes) ?? { task: 'none', node: 'n0' };
    const headers = { authorization: agent.authorization };
    const task = `/v1/projects/${PROJECT}/tasks/${assignment.task}`;
    switch (operation) {
      case 'appendTaskRecord':
        return outcomeOf(
          operation,
          await client.send({
            method: 'POST',
            path: `${task}/records`,
            headers,
            body: {
              node: assignment.node,
              subtask: 'bench',
              observation: this.#pick(OBSERVATIONS),
              result: `step ${++this.#serial}`,
            },
          }),
        );
      case 'addTaskEvidence':
        return outcomeOf(
          operation,
          await client.send({
            method: 'POST',
            path: `${task}/state`,
            headers,
            body: {
              key: `item-${Math.floor(this.#random() * 4)}.status`,
              value: this.#random() < 0.8 ? 'ready' : 'pending',
              tier: this.#random() < 0.5 ? 'tool_observation' : 'agent_inference',
              source: 'bench-tool',
              confidence: 0.6 + this.#random() * 0.4,
            },
          }),
        );
      case 'getTask':
        return outcomeOf(operation, await client.send({ method: 'GET', path: task, headers }));
      case 'listTaskRecords':
        return outcomeOf(operation, await client.send({ method: 'GET', path: `${task}/records?limit=20`, headers }));
      case 'getTaskState':
        return outcomeOf(operation, await client.send({ method: 'GET', path: `${task}/state`, headers }));
      case 'retrieveProcedures': {
        const topic = this.#pick(TOPICS) as string;
        return outcomeOf(
          operation,
          await client.send({
            method: 'POST',
            path: `/v1/projects/${PROJECT}/procedures/retrieve`,
            headers,
            body: { query: `${this.#pick(VERBS)} the ${topic}`, facts: this.#random() < 0.3 ? ['production'] : [] },
          }),
        );
      }
    }
  }

  #anyAgent(): Agent {
    const team = this.#pick(this.#teams) as Team;
    return this.#pick(team.agents) as Agent;
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.#random() * items.length)];
  }
}
