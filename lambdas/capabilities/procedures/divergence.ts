import { analyze, boundedSimilarity, hashedEmbedding } from '../retrieval/public.ts';
import type { PrerequisiteEdge } from './dependency-graph.ts';

/*
 * DIVERGENCE-AWARE ALIGNMENT (reference 001 §4.2, §B.2).
 * Goal (eq. 5):  D_g = β · (1 − sim(f(g_a), f(g*_a))) + (1 − β) · (1 − J_goal(g_a, g*_a; g*)), β = 0.55; realign
 *                when D_g > 0.35. f is the hashed representation, sim = (cos + 1) / 2.
 * Plan (eq. 6):  nodes matched by persistent id over V̄ = V_a ∪ V*_a, a missing node having the null action;
 *                D_p = (Σ_{u ∈ V̄} 1[X_a(u) ≠ X*_a(u)] + |E_a △ E*_a|) / max(1, |V̄| + |Ē|); realign when D_p > 0.40.
 *                Actions are compared trimmed, lower-cased, with runs of white space as one; ownership and status
 *                are not part of a plan here, so they cannot count.
 * State (eq. 7): C_s from state resolution; z = 1[D_g > τ_g ∨ D_p > τ_p ∨ C_s ≠ ∅].
 */

export interface AlignmentThresholds {
  readonly beta: number;
  readonly goal: number;
  readonly plan: number;
}

export const DEFAULT_ALIGNMENT_THRESHOLDS: AlignmentThresholds = { beta: 0.55, goal: 0.35, plan: 0.4 };

/** J_goal: how consistent the agent's intended operation is with its assignment and the task, in [0, 1]. */
export interface GoalConsistencyJudge {
  readonly name: string;
  judge(input: { readonly current: string; readonly assigned: string; readonly objective: string }): Promise<number>;
}

/**
 * The deterministic default judge: the Jaccard index of the two goals' content words (English analysis: stop
 * words dropped, stems compared), so "put the apple in the fridge" against "find the dirty dishes and clean them"
 * scores 0 and a reworded assignment scores high. Two goals with no content word score 1 only when both are
 * empty. The global objective is not read: a model-backed judge can weigh it.
 */
export const contentWordJudge: GoalConsistencyJudge = {
  name: 'content-word-jaccard',
  judge: async ({ current, assigned }) => {
    const a = new Set(analyze(current));
    const b = new Set(analyze(assigned));
    if (a.size === 0 && b.size === 0) return 1;
    let shared = 0;
    for (const word of a) if (b.has(word)) shared += 1;
    return shared / (a.size + b.size - shared);
  },
};

export interface GoalDivergence {
  readonly value: number;
  readonly similarity: number;
  readonly consistency: number;
  readonly realign: boolean;
}

export function goalDivergence(
  current: string,
  assigned: string,
  consistency: number,
  thresholds: AlignmentThresholds = DEFAULT_ALIGNMENT_THRESHOLDS,
): GoalDivergence {
  if (!(consistency >= 0 && consistency <= 1)) throw new RangeError('J_goal must lie within [0, 1]');
  const similarity = boundedSimilarity(hashedEmbedding(current), hashedEmbedding(assigned));
  const value = thresholds.beta * (1 - similarity) + (1 - thresholds.beta) * (1 - consistency);
  return { value, similarity, consistency, realign: value > thresholds.goal };
}

export interface PlanView {
  readonly nodes: readonly { readonly id: string; readonly action: string }[];
  readonly edges: readonly PrerequisiteEdge[];
}

export interface PlanDivergence {
  readonly value: number;
  /** Ids whose action differs, missing on one side included, in id order. */
  readonly nodeEdits: readonly string[];
  /** Edges in only one of the two plans. */
  readonly edgeDifferences: readonly {
    readonly from: string;
    readonly to: string;
    readonly in: 'local' | 'assigned';
  }[];
  readonly realign: boolean;
}

const normalisedAction = (action: string): string => action.trim().toLowerCase().replace(/\s+/gu, ' ');
const edgeKey = (edge: PrerequisiteEdge) => `${edge.from}\u0000${edge.to}`;

export function planDivergence(
  local: PlanView,
  assigned: PlanView,
  thresholds: AlignmentThresholds = DEFAULT_ALIGNMENT_THRESHOLDS,
): PlanDivergence {
  const localActions = new Map(local.nodes.map((node) => [node.id, normalisedAction(node.action)]));
  const assignedActions = new Map(assigned.nodes.map((node) => [node.id, normalisedAction(node.action)]));
  const ids = [...new Set([...localActions.keys(), ...assignedActions.keys()])].sort();
  const nodeEdits = ids.filter((id) => localActions.get(id) !== assignedActions.get(id));
  const localEdges = new Map(local.edges.map((edge) => [edgeKey(edge), edge]));
  const assignedEdges = new Map(assigned.edges.map((edge) => [edgeKey(edge), edge]));
  const edgeDifferences = [
    ...[...localEdges]
      .filter(([key]) => !assignedEdges.has(key))
      .map(([, edge]) => ({ ...edge, in: 'local' as const })),
    ...[...assignedEdges]
      .filter(([key]) => !localEdges.has(key))
      .map(([, edge]) => ({ ...edge, in: 'assigned' as const })),
  ].map(({ from, to, in: side }) => ({ from, to, in: side }));
  const edgeUnion = new Set([...localEdges.keys(), ...assignedEdges.keys()]).size;
  const value = (nodeEdits.length + edgeDifferences.length) / Math.max(1, ids.length + edgeUnion);
  return { value, nodeEdits, edgeDifferences, realign: value > thresholds.plan };
}
