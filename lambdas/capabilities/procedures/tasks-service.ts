import type * as z from 'zod';
import { NotFoundError, ValidationFailedError } from '../../kernel/errors/domain-error.ts';
import { IDEMPOTENCY, type IdempotencyStore } from '../../kernel/idempotency/idempotency-store.port.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import { assertNoSensitiveContent } from '../../kernel/protection/sensitive-content-screen.ts';
import { IdempotencyKeyReusedError } from '../../kernel/records/record.errors.ts';
import type { ExpectedRevisions, Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type {
  CreateResult,
  IdempotencyRequest,
  RecordService,
  RecordView,
} from '../../kernel/records/record-service.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { IdGenerator } from '../../kernel/time/ids.ts';
import type { CandidateContent } from './candidate.schema.ts';
import { downstreamOf, prerequisitesOf } from './dependency-graph.ts';
import {
  type GoalConsistencyJudge,
  type GoalDivergence,
  goalDivergence,
  type PlanDivergence,
  planDivergence,
} from './divergence.ts';
import { type EntryWithId, extractSupportedStructure, mergeWarnings } from './extraction.ts';
import { nextMinorVersion, type ProcedureContent } from './procedure.schema.ts';
import type { ProceduresSettings } from './procedures.config.ts';
import { InvalidTransitionError, PrerequisitesUnmetError, ProjectRoleRequiredError } from './procedures.errors.ts';
import { isManagerOf, requireManager } from './project-roles.ts';
import { claimUtility } from './promotion.ts';
import { conflictingKeys, resolveState, type StateResolution } from './state-resolution.ts';
import {
  type AlignmentInput,
  type BlackboardEntry,
  type BlackboardEntryInput,
  type CompleteTaskInput,
  type CreateTaskInput,
  type NodeStatus,
  type PlanInput,
  type StateEvidenceInput,
  type StoredEvidence,
  TASK,
  TaskContent,
  type TaskNode,
} from './task.schema.ts';

export type TaskView = RecordView<TaskContent>;
export type EntryView = RecordView<BlackboardEntry>;
export type EvidenceView = RecordView<StoredEvidence>;
export type CandidateView = RecordView<CandidateContent>;

export interface TasksDependencies {
  readonly tasks: RecordService<TaskContent>;
  readonly entries: RecordService<BlackboardEntry>;
  readonly evidence: RecordService<StoredEvidence>;
  readonly candidates: RecordService<CandidateContent>;
  readonly procedures: RecordService<ProcedureContent>;
  readonly judge: GoalConsistencyJudge;
  readonly settings: () => ProceduresSettings;
  readonly idempotency: IdempotencyStore;
  readonly idempotencyKeyHours: () => number;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

export interface Alignment {
  readonly agent: string;
  readonly goal: GoalDivergence;
  readonly plan?: PlanDivergence;
  readonly state: { readonly conflicts: readonly string[] };
  readonly realign: boolean;
  readonly corrections: readonly EntryView[];
}

export interface Completion {
  readonly task: TaskView;
  readonly candidate?: CandidateView;
  readonly supported: {
    readonly nodes: readonly string[];
    readonly edges: number;
    readonly unsupported: readonly string[];
  };
}

const HOUR_MS = 3_600_000;
/** An observation time may run ahead of this service's clock by at most this (clock skew between agents). */
const FUTURE_SKEW_MS = 5 * 60_000;

/** Which outcomes move a node, from which statuses, and who may record them. */
const TRANSITIONS: Readonly<
  Record<
    Exclude<BlackboardEntryInput['outcome'], 'observed'>,
    { from: readonly NodeStatus[]; to: NodeStatus; by: 'assignee' | 'manager' }
  >
> = {
  started: { from: ['pending', 'stale', 'failed'], to: 'in_progress', by: 'assignee' },
  done: { from: ['in_progress'], to: 'done', by: 'assignee' },
  failed: { from: ['in_progress'], to: 'failed', by: 'assignee' },
  verified: { from: ['done'], to: 'verified', by: 'manager' },
};

const parsedOrRefused = <S extends z.ZodType>(schema: S, value: unknown, message: string): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationFailedError(
    message,
    result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
};

/**
 * Team tasks (reference 001 §3, §4.1–4.3): task graphs instantiated from a procedure or a supplied plan, the
 * blackboard each node's agent writes to, state evidence and its resolution, divergence-aware alignment, and
 * completion, which keeps the supported structure as a candidate. Everything lives in the project's space:
 * a non-member gets 404 for all of it. The manager (project role) plans, verifies, aligns and completes; an
 * agent writes only as itself, against its own nodes.
 */
export class TasksService {
  readonly #deps: TasksDependencies;

  constructor(deps: TasksDependencies) {
    this.#deps = deps;
  }

  async create(
    scope: Scope,
    project: string,
    input: CreateTaskInput,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<TaskContent>> {
    scope.namespace(TASK, { project });
    requireManager(scope, project);
    const graph = input.fromProcedure
      ? await this.#fromProcedure(scope, project, input.fromProcedure)
      : { ...this.#fromPlan(input.plan as PlanInput, new Map()), procedures: [] };
    const content = parsedOrRefused(
      TaskContent,
      {
        objective: input.objective,
        constraints: input.constraints,
        facts: input.facts,
        procedures: graph.procedures,
        nodes: graph.nodes,
        edges: graph.edges,
        status: 'open',
        plan: 1,
      },
      'The task graph is invalid',
    );
    return this.#deps.tasks.create(scope, { project }, content, idempotency);
  }

  /** The manager and the task's assignees see it; anyone else in the project is answered as if it did not exist. */
  async get(scope: Scope, project: string, id: string): Promise<TaskView> {
    const task = await this.#deps.tasks.get(scope, { project }, id);
    if (!this.#isMember(scope, project, task)) throw new NotFoundError();
    return task;
  }

  list(scope: Scope, project: string, page: PageRequest): Promise<Page<TaskView>> {
    scope.namespace(TASK, { project });
    requireManager(scope, project);
    return this.#deps.tasks.list(scope, { project }, page);
  }

  history(scope: Scope, project: string, id: string, page: PageRequest): Promise<Page<TaskView>> {
    return this.get(scope, project, id).then(() => this.#deps.tasks.history(scope, { project }, id, page));
  }

  /**
   * A revised acyclic plan (§B.4): nodes that keep their id keep their status unless their action or
   * prerequisites changed; those that changed start again, and every node downstream of one whose verification
   * it relied on is marked stale; new steps get new ids.
   */
  async replan(
    scope: Scope,
    project: string,
    id: string,
    expected: ExpectedRevisions | undefined,
    plan: PlanInput,
  ): Promise<TaskView> {
    await this.get(scope, project, id);
    requireManager(scope, project);
    return this.#deps.tasks.update(scope, { project }, id, expected, (current) => {
      if (current.status !== 'open') throw new InvalidTransitionError('Only an open task can be replanned');
      const previous = new Map(current.nodes.map((node) => [node.id, node]));
      const { nodes, edges } = this.#fromPlan(plan, previous);
      const before = prerequisitesOf(
        current.nodes.map((node) => node.id),
        current.edges,
      );
      const after = prerequisitesOf(
        nodes.map((node) => node.id),
        edges,
      );
      const sameSet = (a: readonly string[] = [], b: readonly string[] = []) =>
        a.length === b.length && a.every((entry) => b.includes(entry));
      const changed = new Set(
        nodes
          .filter((node) => {
            const old = previous.get(node.id);
            return (
              old !== undefined && (old.action !== node.action || !sameSet(before.get(node.id), after.get(node.id)))
            );
          })
          .map((node) => node.id),
      );
      const stale = downstreamOf(changed, edges);
      const revised = nodes.map((node): TaskNode => {
        if (changed.has(node.id)) return { ...node, status: 'pending' };
        // Work under way or finished downstream of a change rested on what changed: it must be done again.
        if (stale.has(node.id) && ['in_progress', 'done', 'verified'].includes(node.status))
          return { ...node, status: 'stale' };
        return node;
      });
      return parsedOrRefused(
        TaskContent,
        { ...current, nodes: revised, edges, plan: current.plan + 1 },
        'The task graph is invalid',
      );
    });
  }

  /** Eq. 4: an entry against one node, written as the caller; starting a node needs its prerequisites verified. */
  async appendEntry(
    scope: Scope,
    project: string,
    taskId: string,
    input: BlackboardEntryInput,
    idempotency?: IdempotencyRequest,
  ): Promise<{ readonly entry: CreateResult<BlackboardEntry>; readonly task: TaskView }> {
    const manager = isManagerOf(scope, project);
    let task = await this.get(scope, project, taskId);
    const check = (content: TaskContent): TaskNode => {
      if (content.status !== 'open') throw new InvalidTransitionError('The task is no longer open');
      const node = content.nodes.find((candidate) => candidate.id === input.node);
      if (!node)
        throw new ValidationFailedError('The entry names no node of this task', [
          { path: 'node', message: 'not a node of this task' },
        ]);
      if (node.assignee !== scope.principal && !manager)
        throw new ProjectRoleRequiredError("Only the node's assignee or the project's manager writes against it");
      if (input.outcome === 'observed') return node;
      const rule = TRANSITIONS[input.outcome];
      if (rule.by === 'manager' ? !manager : node.assignee !== scope.principal)
        throw new ProjectRoleRequiredError(
          rule.by === 'manager'
            ? "Only the project's manager verifies a node"
            : "Only the node's assignee records its work",
        );
      if (!rule.from.includes(node.status))
        throw new InvalidTransitionError(
          `A node cannot be ${input.outcome} from ${node.status} (allowed from ${rule.from.join(', ')})`,
        );
      if (input.outcome === 'started') {
        const status = new Map(content.nodes.map((candidate) => [candidate.id, candidate.status]));
        const place = (id: string) => `nodes[${content.nodes.findIndex((candidate) => candidate.id === id)}]`;
        const unmet = content.edges
          .filter((edge) => edge.to === node.id && status.get(edge.from) !== 'verified')
          .map((edge) => place(edge.from));
        if (unmet.length > 0) throw new PrerequisitesUnmetError(unmet);
      }
      return node;
    };
    const content = { ...input, agent: scope.principal, entry: 'execution' as const };
    // Refused content is refused before anything moves (the entry's own write would refuse it only afterwards).
    assertNoSensitiveContent(content);
    const revise = async () =>
      input.outcome === 'observed'
        ? task
        : this.#revise(scope, project, taskId, (current) => {
            const node = check(current);
            const to = TRANSITIONS[input.outcome as Exclude<typeof input.outcome, 'observed'>].to;
            return {
              ...current,
              nodes: current.nodes.map((candidate) =>
                candidate.id === node.id ? { ...candidate, status: to } : candidate,
              ),
            };
          });
    if (idempotency !== undefined) {
      // Under an Idempotency-Key the key is claimed before anything moves: a reused key is refused and a replay
      // answers the entry first written, with the task as it stands, moving nothing again. A first attempt that
      // was refused wrote nothing, so its retry is answered as it would be now.
      const claim = await this.#deps.idempotency.claim(scope.namespace(IDEMPOTENCY), idempotency.key, {
        fingerprint: idempotency.fingerprint,
        recordId: this.#deps.ids.next(),
        expiresAt: new Date(
          this.#deps.clock.now().getTime() + this.#deps.idempotencyKeyHours() * HOUR_MS,
        ).toISOString(),
      });
      if (claim.outcome === 'existing') {
        if (claim.fingerprint !== idempotency.fingerprint) throw new IdempotencyKeyReusedError();
        const first = await this.#deps.entries.get(scope, { project, task: taskId }, claim.recordId).catch((error) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
        if (first)
          return {
            entry: { record: first, replayed: true },
            task: await this.#deps.tasks.get(scope, { project }, taskId),
          };
      }
    }
    // The node moves first: the compare-and-set on the task decides a race, and the losers write nothing. The
    // entry then takes the id the key was claimed for (the record service finds the claim).
    check(task.content as TaskContent);
    task = await revise();
    const { record } = await this.#deps.entries.create(scope, { project, task: taskId }, content, idempotency);
    return { entry: { record, replayed: false }, task };
  }

  /** The task's feed, oldest first: every entry, corrections included. */
  async entries(scope: Scope, project: string, taskId: string, page: PageRequest): Promise<Page<EntryView>> {
    await this.get(scope, project, taskId);
    return this.#deps.entries.list(scope, { project, task: taskId }, page);
  }

  /** §B.3 evidence for one state key; an inference's source is its agent, whoever the caller says. */
  async addEvidence(
    scope: Scope,
    project: string,
    taskId: string,
    input: StateEvidenceInput,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<StoredEvidence>> {
    const task = await this.get(scope, project, taskId);
    if (task.content?.status !== 'open') throw new InvalidTransitionError('The task is no longer open');
    const now = this.#deps.clock.now().getTime();
    if (input.observedAt !== undefined && Date.parse(input.observedAt) > now + FUTURE_SKEW_MS)
      throw new ValidationFailedError('The observation lies in the future', [
        { path: 'observedAt', message: 'must not be later than now' },
      ]);
    const source = input.tier === 'agent_inference' ? scope.principal : (input.source ?? scope.principal);
    return this.#deps.evidence.create(
      scope,
      { project, task: taskId },
      {
        ...input,
        source,
        observedAt: input.observedAt ?? new Date(now).toISOString(),
        reportedBy: scope.principal,
      },
      idempotency,
    );
  }

  async state(
    scope: Scope,
    project: string,
    taskId: string,
  ): Promise<{ readonly keys: readonly StateResolution[]; readonly conflicts: readonly string[] }> {
    await this.get(scope, project, taskId);
    const evidence = await this.#allEvidence(scope, project, taskId);
    const min = this.#deps.settings().minEvidenceConfidence;
    return { keys: resolveState(evidence, min), conflicts: conflictingKeys(evidence, min) };
  }

  /**
   * Eq. 5–7 for one agent against its assignment: the goal, its local plan against the subgraph it was assigned
   * (its nodes and the prerequisites others supply them) and the task's state conflicts. When any signal fires,
   * corrections go to the affected agents' feed as blackboard entries.
   */
  async align(scope: Scope, project: string, taskId: string, input: AlignmentInput): Promise<Alignment> {
    const task = await this.get(scope, project, taskId);
    requireManager(scope, project);
    const content = task.content as TaskContent;
    const settings = this.#deps.settings();
    const thresholds = {
      beta: settings.goalBeta,
      goal: settings.goalDivergenceThreshold,
      plan: settings.planDivergenceThreshold,
    };
    const assigned = content.nodes.filter((node) => node.assignee === input.agent);
    if (assigned.length === 0)
      throw new ValidationFailedError('The agent has no node in this task', [
        { path: 'agent', message: 'has no node in this task' },
      ]);
    const assignedGoal = assigned.map((node) => node.action).join('; ');
    const consistency = await this.#deps.judge.judge({
      current: input.goal,
      assigned: assignedGoal,
      objective: content.objective,
    });
    const goal = goalDivergence(input.goal, assignedGoal, consistency, thresholds);
    const mine = new Set(assigned.map((node) => node.id));
    const assignedEdges = content.edges.filter((edge) => mine.has(edge.to));
    const supplied = new Set(assignedEdges.map((edge) => edge.from));
    const plan =
      input.plan === undefined
        ? undefined
        : planDivergence(
            input.plan,
            {
              nodes: content.nodes.filter((node) => mine.has(node.id) || supplied.has(node.id)),
              edges: assignedEdges,
            },
            thresholds,
          );
    const evidence = await this.#allEvidence(scope, project, taskId);
    const conflicts = conflictingKeys(evidence, settings.minEvidenceConfidence);
    const messages: { to: string; node: string; text: string }[] = [];
    const firstNode = (assigned[0] as TaskNode).id;
    if (goal.realign)
      messages.push({
        to: input.agent,
        node: firstNode,
        text: `Goal divergence: return to the assigned goal: ${assignedGoal}`,
      });
    if (plan?.realign)
      messages.push({
        to: input.agent,
        node: firstNode,
        text: `Plan divergence: restore the assigned plan (${plan.nodeEdits.length} node edits, ${plan.edgeDifferences.length} prerequisite differences); resume from the last verified node`,
      });
    if (conflicts.length > 0) {
      const involved = new Set(evidence.filter((item) => conflicts.includes(item.key)).map((item) => item.reportedBy));
      involved.add(input.agent);
      for (const agent of [...involved].sort()) {
        const node = content.nodes.find((candidate) => candidate.assignee === agent)?.id ?? firstNode;
        messages.push({
          to: agent,
          node,
          text: `State conflict on ${conflicts.join(', ')}: obtain a fresh authoritative or tool observation before acting on it`,
        });
      }
    }
    const corrections: EntryView[] = [];
    for (const message of messages) {
      const { record } = await this.#deps.entries.create(
        scope,
        { project, task: taskId },
        {
          node: message.node,
          subtask: '',
          observation: message.text,
          action: '',
          result: '',
          error: '',
          outcome: 'observed',
          agent: scope.principal,
          entry: 'correction',
          to: message.to,
        },
      );
      corrections.push(record);
    }
    return {
      agent: input.agent,
      goal,
      ...(plan && { plan }),
      state: { conflicts },
      realign: goal.realign || plan?.realign === true || conflicts.length > 0,
      corrections,
    };
  }

  /**
   * Ends the task with its outcome and, for a completed one, keeps its supported structure (eq. 8) as a
   * candidate: a revision of the procedure it was instantiated from (at that revision) or a new procedure.
   * The candidate is prechecked by eq. 12 and stays outside the active pool until promoted.
   */
  async complete(scope: Scope, project: string, taskId: string, input: CompleteTaskInput): Promise<Completion> {
    const task = await this.get(scope, project, taskId);
    requireManager(scope, project);
    const content = task.content as TaskContent;
    if (content.status !== 'open') throw new InvalidTransitionError('The task is already closed');
    const entries = await this.#allEntries(scope, project, taskId);
    const structure = extractSupportedStructure(taskId, content, entries, input.lessons);
    let proposal: CandidateContent | undefined;
    if (input.outcome === 'completed' && structure.steps.length > 0) {
      const reference = content.procedures[0];
      const base = reference
        ? await this.#deps.procedures.get(scope, { project }, reference.procedureId).catch(() => undefined)
        : undefined;
      const baseContent = base?.content ?? undefined;
      const utility = claimUtility(input.benefit, input.cost, this.#policy());
      proposal = {
        taskId,
        ...(reference && baseContent && { base: reference }),
        metadata: baseContent?.metadata ?? {
          title: content.objective.slice(0, 2000),
          description: content.objective,
          taskFamily: 'unspecified',
          applicability: [],
          tags: [],
          contextConditions: [],
          exclusions: [],
        },
        version: baseContent ? nextMinorVersion(baseContent.version) : '1.0',
        steps: structure.steps,
        prerequisites: structure.prerequisites,
        warnings: mergeWarnings(baseContent?.warnings ?? [], structure.warnings).slice(0, 50),
        benefit: input.benefit,
        cost: input.cost,
        claimUtility: utility,
        causalConfidence: input.causalConfidence,
        safetyRisk: input.safetyRisk,
        trials: [],
        status: utility >= 0 ? 'candidate' : 'rejected',
        reasons: utility >= 0 ? [] : ['precheck.negative_claim_utility'],
        warningsAttached: false,
      };
    }
    // Closing is the compare-and-set that decides a race of completions; the candidate takes the task's id, so
    // whatever happens after, a task leaves at most one candidate.
    const closed = await this.#revise(scope, project, taskId, (current) => {
      if (current.status !== 'open') throw new InvalidTransitionError('The task is already closed');
      return { ...current, status: input.outcome, ...(proposal && { candidateId: taskId }) };
    });
    const candidate = proposal
      ? (await this.#deps.candidates.put(scope, { project }, taskId, undefined, proposal)).record
      : undefined;
    return {
      task: closed,
      ...(candidate && { candidate }),
      supported: {
        nodes: structure.steps.map((step) => step.id),
        edges: structure.prerequisites.length,
        unsupported: structure.unsupported,
      },
    };
  }

  #policy() {
    const settings = this.#deps.settings();
    return {
      costWeight: settings.costWeight,
      maxSafetyRisk: settings.maxSafetyRisk,
      minCausalConfidence: settings.minCausalConfidence,
      minReproductions: settings.minReproductions,
    };
  }

  #isMember(scope: Scope, project: string, task: TaskView): boolean {
    return isManagerOf(scope, project) || (task.content?.nodes ?? []).some((node) => node.assignee === scope.principal);
  }

  async #fromProcedure(
    scope: Scope,
    project: string,
    from: NonNullable<CreateTaskInput['fromProcedure']>,
  ): Promise<Pick<TaskContent, 'nodes' | 'edges' | 'procedures'>> {
    const procedure = await this.#deps.procedures.get(scope, { project }, from.procedureId);
    const content = procedure.content as ProcedureContent;
    if (content.status !== 'active')
      throw new ValidationFailedError('The procedure is retired', [
        { path: 'fromProcedure.procedureId', message: 'names a retired procedure' },
      ]);
    const unassigned = content.steps.findIndex((step) => !Object.hasOwn(from.assignments, step.id));
    if (unassigned >= 0)
      throw new ValidationFailedError('Every step needs an assignee', [
        { path: 'fromProcedure.assignments', message: `steps[${unassigned}] has no assignee` },
      ]);
    return {
      nodes: content.steps.map((step) => ({
        id: step.id,
        action: step.instruction,
        assignee: from.assignments[step.id] as string,
        status: 'pending',
        step: step.id,
      })),
      edges: content.prerequisites,
      procedures: [{ procedureId: procedure.id, revision: procedure.revision }],
    };
  }

  /** Nodes with their ids (kept, or new ones for new steps) and edges resolved from ids or `#i` places. */
  #fromPlan(plan: PlanInput, previous: ReadonlyMap<string, TaskNode>): Pick<TaskContent, 'nodes' | 'edges'> {
    const nodes = plan.nodes.map((node): TaskNode => {
      const kept = node.id === undefined ? undefined : previous.get(node.id);
      return {
        id: node.id ?? `n${this.#deps.ids.next()}`,
        action: node.action,
        assignee: node.assignee,
        status: kept && kept.action === node.action && kept.assignee === node.assignee ? kept.status : 'pending',
        ...(kept?.step && { step: kept.step }),
      };
    });
    const refOf = new Map<string, string>();
    plan.nodes.forEach((node, index) => {
      refOf.set(`#${index}`, (nodes[index] as TaskNode).id);
      if (node.id !== undefined) refOf.set(node.id, node.id);
    });
    const edges = plan.edges.map((edge, index) => {
      const from = refOf.get(edge.from);
      const to = refOf.get(edge.to);
      if (from === undefined || to === undefined)
        throw new ValidationFailedError('The plan is invalid', [
          { path: `plan.edges.${index}`, message: 'names a node that is not in nodes (by id or #place)' },
        ]);
      return { from, to };
    });
    return { nodes, edges };
  }

  /** The task's current head changed by `change`, re-read on a lost race. */
  #revise(scope: Scope, project: string, id: string, change: (content: TaskContent) => TaskContent): Promise<TaskView> {
    return this.#deps.tasks.reviseCurrent(scope, { project }, id, (current) => change(current as TaskContent));
  }

  async #allEntries(scope: Scope, project: string, taskId: string): Promise<EntryWithId[]> {
    const entries = await this.#deps.entries.listAll(scope, { project, task: taskId });
    return entries.flatMap((item) => (item.content ? [{ id: item.id, entry: item.content }] : []));
  }

  async #allEvidence(scope: Scope, project: string, taskId: string): Promise<StoredEvidence[]> {
    const evidence = await this.#deps.evidence.listAll(scope, { project, task: taskId });
    return evidence.flatMap((item) => (item.content ? [item.content] : []));
  }
}
