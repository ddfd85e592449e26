import { describe, expect, it } from 'vitest';
import {
  contentWordJudge,
  goalDivergence,
  type PlanView,
  planDivergence,
} from '../../../lambdas/capabilities/procedures/divergence.ts';

const assigned: PlanView = {
  nodes: [
    { id: 'find-cups', action: 'Find the dirty cups' },
    { id: 'clean-cups', action: 'Clean the cups' },
    { id: 'store', action: 'Store the items in the cabinet' },
  ],
  edges: [
    { from: 'find-cups', to: 'clean-cups' },
    { from: 'clean-cups', to: 'store' },
  ],
};

describe('Function: planDivergence', () => {
  it('is 0 for the same plan with its nodes and edges listed in another order', () => {
    const shuffled: PlanView = {
      nodes: [...assigned.nodes].reverse().map((node) => ({ ...node, action: `  ${node.action.toUpperCase()} ` })),
      edges: [...assigned.edges].reverse(),
    };
    expect(planDivergence(shuffled, assigned)).toMatchObject({
      value: 0,
      nodeEdits: [],
      edgeDifferences: [],
      realign: false,
    });
  });

  it('counts a changed action, a missing node and the edge symmetric difference over the combined size', () => {
    // Prepare: the local plan rewrites clean-cups, drops store, adds a fridge step and its edge.
    const local: PlanView = {
      nodes: [
        { id: 'find-cups', action: 'Find the dirty cups' },
        { id: 'clean-cups', action: 'Put the apple in the fridge' },
        { id: 'fridge', action: 'Open the fridge' },
      ],
      edges: [
        { from: 'find-cups', to: 'clean-cups' },
        { from: 'fridge', to: 'clean-cups' },
      ],
    };
    // Act
    const divergence = planDivergence(local, assigned);
    // Assess: V̄ = 4 ids, Ē = 3 edges; edits: clean-cups, fridge, store (3); edge differences 2 → 5 / 7
    expect(divergence.nodeEdits).toEqual(['clean-cups', 'fridge', 'store']);
    expect(divergence.edgeDifferences).toEqual([
      { from: 'fridge', to: 'clean-cups', in: 'local' },
      { from: 'clean-cups', to: 'store', in: 'assigned' },
    ]);
    expect(divergence.value).toBeCloseTo(5 / 7, 12);
    expect(divergence.realign).toBe(true);
  });

  it('realigns only above 0.40', () => {
    // One edit out of 3 nodes + 2 edges: 0.2.
    const local = {
      ...assigned,
      nodes: assigned.nodes.map((node) => (node.id === 'store' ? { ...node, action: 'Store the cups' } : node)),
    };
    expect(planDivergence(local, assigned)).toMatchObject({ value: 0.2, realign: false });
    expect(planDivergence({ nodes: [], edges: [] }, { nodes: [], edges: [] }).value).toBe(0);
  });
});

describe('Function: goalDivergence', () => {
  it('combines hashed similarity and J_goal with β = 0.55', () => {
    const same = goalDivergence('Find the dirty dishes and clean them', 'Find the dirty dishes and clean them', 1);
    expect(same.value).toBeCloseTo(0, 12);
    const detour = goalDivergence('Put the apple in the fridge', 'Find the dirty dishes and clean them', 0);
    expect(detour.value).toBeCloseTo(0.55 * (1 - detour.similarity) + 0.45, 12);
    expect(detour.realign).toBe(true);
  });

  it('refuses a judge score outside [0, 1]', () => {
    expect(() => goalDivergence('a', 'b', 1.5)).toThrow(RangeError);
  });
});

describe('Judge: contentWordJudge', () => {
  it('scores the Jaccard index of stemmed content words', async () => {
    const judge = (current: string, assigned: string) => contentWordJudge.judge({ current, assigned, objective: '' });
    expect(await judge('Put the apple in the fridge', 'Find the dirty dishes and clean them')).toBe(0);
    expect(await judge('Cleaning the dirty dishes', 'Clean the dirty dish')).toBe(1);
    expect(await judge('find a restaurant', 'book a restaurant')).toBeCloseTo(1 / 3, 12);
  });
});
