import type * as z from 'zod';

/*
 * A prerequisite graph (reference 001 §3, §B.4): steps with persistent ids, and edges `from → to` meaning "the
 * outcome of `from` is a prerequisite of `to`". It must be a DAG: a self-loop, a second copy of an edge, an edge
 * naming an unknown step and a cycle are each refused, with the steps involved named. A retry is a new
 * execution record of its step, never a back edge.
 */

export interface PrerequisiteEdge {
  readonly from: string;
  readonly to: string;
}

export type GraphDefect =
  | { readonly kind: 'duplicate_step'; readonly edge?: undefined; readonly steps: readonly [string] }
  | { readonly kind: 'unknown_step'; readonly edge: number; readonly steps: readonly [string] }
  | { readonly kind: 'self_loop'; readonly edge: number; readonly steps: readonly [string] }
  | { readonly kind: 'duplicate_edge'; readonly edge: number; readonly steps: readonly [string, string] }
  | { readonly kind: 'cycle'; readonly edge?: undefined; readonly steps: readonly string[] };

const edgeKey = (edge: PrerequisiteEdge) => `${edge.from}\u0000${edge.to}`;

/**
 * Every defect of the graph, in a stable order: duplicate steps, then per edge (unknown step, self-loop,
 * duplicate), then one cycle if the remaining edges have any (its steps in order, the first repeated last).
 */
export function graphDefects(steps: readonly string[], edges: readonly PrerequisiteEdge[]): GraphDefect[] {
  const defects: GraphDefect[] = [];
  const known = new Set<string>();
  for (const step of steps) {
    if (known.has(step)) defects.push({ kind: 'duplicate_step', steps: [step] });
    known.add(step);
  }
  const seen = new Set<string>();
  const usable: PrerequisiteEdge[] = [];
  edges.forEach((edge, index) => {
    const unknown = [edge.from, edge.to].find((step) => !known.has(step));
    if (unknown !== undefined) defects.push({ kind: 'unknown_step', edge: index, steps: [unknown] });
    else if (edge.from === edge.to) defects.push({ kind: 'self_loop', edge: index, steps: [edge.from] });
    else if (seen.has(edgeKey(edge)))
      defects.push({ kind: 'duplicate_edge', edge: index, steps: [edge.from, edge.to] });
    else {
      seen.add(edgeKey(edge));
      usable.push(edge);
    }
  });
  const cycle = findCycle([...known], usable);
  if (cycle !== undefined) defects.push({ kind: 'cycle', steps: cycle });
  return defects;
}

/** One cycle among the edges as its steps in order (`a, b, c, a`), or undefined when the graph is acyclic. */
export function findCycle(steps: readonly string[], edges: readonly PrerequisiteEdge[]): string[] | undefined {
  const next = successorsOf(steps, edges);
  // Iterative depth-first search: 0 unvisited, 1 on the current path, 2 finished.
  const state = new Map<string, 0 | 1 | 2>(steps.map((step) => [step, 0]));
  for (const root of steps) {
    if (state.get(root) !== 0) continue;
    const path: string[] = [root];
    const cursors: number[] = [0];
    state.set(root, 1);
    while (path.length > 0) {
      const step = path[path.length - 1] as string;
      const successors = next.get(step) ?? [];
      const cursor = cursors[cursors.length - 1] as number;
      if (cursor >= successors.length) {
        state.set(step, 2);
        path.pop();
        cursors.pop();
        continue;
      }
      cursors[cursors.length - 1] = cursor + 1;
      const successor = successors[cursor] as string;
      if (state.get(successor) === 1) return [...path.slice(path.indexOf(successor)), successor];
      if (state.get(successor) === 0) {
        state.set(successor, 1);
        path.push(successor);
        cursors.push(0);
      }
    }
  }
  return undefined;
}

const successorsOf = (steps: readonly string[], edges: readonly PrerequisiteEdge[]): Map<string, string[]> => {
  const next = new Map<string, string[]>(steps.map((step) => [step, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  return next;
};

/** The direct prerequisites of each step. */
export function prerequisitesOf(steps: readonly string[], edges: readonly PrerequisiteEdge[]): Map<string, string[]> {
  const before = new Map<string, string[]>(steps.map((step) => [step, []]));
  for (const edge of edges) before.get(edge.to)?.push(edge.from);
  return before;
}

/** Every step reachable from `starts` along the edges, the starts excluded unless reached again. */
export function downstreamOf(starts: Iterable<string>, edges: readonly PrerequisiteEdge[]): Set<string> {
  const next = new Map<string, string[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const reached = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const step = queue.shift() as string;
    for (const successor of next.get(step) ?? [])
      if (!reached.has(successor)) {
        reached.add(successor);
        queue.push(successor);
      }
  }
  return reached;
}

/** Every step from which `end` can be reached: its transitive prerequisites. */
export function upstreamOf(end: string, edges: readonly PrerequisiteEdge[]): Set<string> {
  return downstreamOf(
    [end],
    edges.map((edge) => ({ from: edge.to, to: edge.from })),
  );
}

/** How a graph's parts are called where it is refused: a procedure's steps and prerequisites, a task's nodes and edges. */
export interface GraphWords {
  readonly node: string;
  readonly nodes: string;
  readonly edge: string;
  readonly edges: string;
}

/**
 * Adds an issue for each defect of the graph, at the edge that makes it (or at the node list), each node named
 * by its place (`steps[2]`): an error never echoes what the caller sent, ids included.
 */
export const refuseGraphDefects = (
  ids: readonly string[],
  edges: readonly PrerequisiteEdge[],
  words: GraphWords,
  context: z.core.$RefinementCtx,
): void => {
  const at = (node: string) => `${words.nodes}[${ids.indexOf(node)}]`;
  const messageOf = (defect: GraphDefect): string => {
    switch (defect.kind) {
      case 'duplicate_step':
        return `${at(defect.steps[0])} has the id of an earlier ${words.node}`;
      case 'unknown_step':
        return `the ${words.edge} names a ${words.node} that is not in ${words.nodes}`;
      case 'self_loop':
        return `${at(defect.steps[0])} cannot be its own prerequisite`;
      case 'duplicate_edge':
        return `the ${words.edge} ${at(defect.steps[0])} → ${at(defect.steps[1])} is listed twice`;
      case 'cycle':
        return `the ${words.edges} form a cycle: ${defect.steps.map(at).join(' → ')}`;
    }
  };
  for (const defect of graphDefects(ids, edges))
    context.addIssue({
      code: 'custom',
      path: defect.edge === undefined ? [words.nodes] : [words.edges, defect.edge],
      message: messageOf(defect),
    });
};
