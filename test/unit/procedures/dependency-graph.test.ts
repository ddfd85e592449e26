import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  downstreamOf,
  findCycle,
  graphDefects,
  upstreamOf,
} from '../../../lambdas/capabilities/procedures/dependency-graph.ts';
import { CreateProcedureInput } from '../../../lambdas/capabilities/procedures/procedure.schema.ts';

const steps = ['a', 'b', 'c', 'd'];

describe('Function: graphDefects', () => {
  it('accepts a DAG', () => {
    expect(
      graphDefects(steps, [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'c' },
        { from: 'b', to: 'd' },
        { from: 'c', to: 'd' },
      ]),
    ).toEqual([]);
  });

  it('names a self-loop, a duplicate edge, an unknown step and a duplicate step', () => {
    // Act
    const defects = graphDefects(
      ['a', 'b', 'a'],
      [
        { from: 'a', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'z' },
      ],
    );
    // Assess
    expect(defects).toEqual([
      { kind: 'duplicate_step', steps: ['a'] },
      { kind: 'self_loop', edge: 0, steps: ['a'] },
      { kind: 'duplicate_edge', edge: 2, steps: ['a', 'b'] },
      { kind: 'unknown_step', edge: 3, steps: ['z'] },
    ]);
  });

  it('names the steps of a cycle in order', () => {
    const defects = graphDefects(steps, [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'd' },
    ]);
    expect(defects).toEqual([{ kind: 'cycle', steps: ['a', 'b', 'c', 'a'] }]);
  });

  it('finds a cycle exactly when no topological order exists (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 })), { maxLength: 20 }),
        (pairs) => {
          const ids = Array.from({ length: 8 }, (_, index) => `s${index}`);
          const edges = pairs
            .filter(([from, to]) => from !== to)
            .map(([from, to]) => ({ from: `s${from}`, to: `s${to}` }));
          const cycle = findCycle(ids, edges);
          // Kahn's algorithm as the oracle.
          const indegree = new Map(ids.map((id) => [id, 0]));
          for (const edge of edges) indegree.set(edge.to, (indegree.get(edge.to) ?? 0) + 1);
          const queue = ids.filter((id) => indegree.get(id) === 0);
          let ordered = 0;
          while (queue.length > 0) {
            const id = queue.shift() as string;
            ordered += 1;
            for (const edge of edges.filter((candidate) => candidate.from === id)) {
              indegree.set(edge.to, (indegree.get(edge.to) ?? 0) - 1);
              if (indegree.get(edge.to) === 0) queue.push(edge.to);
            }
          }
          expect(cycle !== undefined).toBe(ordered < ids.length);
          if (cycle === undefined) return;
          // The reported cycle is a closed walk along real edges.
          expect(cycle[0]).toBe(cycle.at(-1));
          for (let index = 0; index + 1 < cycle.length; index += 1)
            expect(edges.some((edge) => edge.from === cycle[index] && edge.to === cycle[index + 1])).toBe(true);
        },
      ),
    );
  });
});

describe('Function: downstreamOf / upstreamOf', () => {
  const edges = [
    { from: 'a', to: 'b' },
    { from: 'b', to: 'c' },
    { from: 'a', to: 'd' },
  ];
  it('walks the edges transitively', () => {
    expect([...downstreamOf(['b'], edges)]).toEqual(['c']);
    expect([...upstreamOf('c', edges)].sort()).toEqual(['a', 'b']);
  });
});

describe('Schema: CreateProcedureInput', () => {
  const body = (prerequisites: unknown[]) => ({
    metadata: {
      title: 'Kitchenware cleaning and storage',
      description: 'Clean and store',
      taskFamily: 'household cleaning',
    },
    steps: [
      { id: 'find', instruction: 'Find the dirty cups' },
      { id: 'clean', instruction: 'Clean them' },
    ],
    prerequisites,
  });

  it('refuses a cycle with an issue naming its steps', () => {
    const parsed = CreateProcedureInput.safeParse(
      body([
        { from: 'find', to: 'clean' },
        { from: 'clean', to: 'find' },
      ]),
    );
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'the prerequisites form a cycle: steps[0] → steps[1] → steps[0]',
    ]);
  });

  it('refuses a self-loop and a duplicate edge at the edge that makes them', () => {
    const parsed = CreateProcedureInput.safeParse(
      body([
        { from: 'find', to: 'find' },
        { from: 'find', to: 'clean' },
        { from: 'find', to: 'clean' },
      ]),
    );
    expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['prerequisites.0', 'steps[0] cannot be its own prerequisite'],
      ['prerequisites.2', 'the prerequisite steps[0] → steps[1] is listed twice'],
    ]);
  });

  it('defaults the version to 1.0', () => {
    expect(CreateProcedureInput.parse(body([{ from: 'find', to: 'clean' }])).version).toBe('1.0');
  });
});
