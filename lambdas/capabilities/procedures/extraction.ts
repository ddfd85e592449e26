import { detectInstructionInjection } from '../../kernel/protection/instruction-injection.ts';
import type { ConditionalWarning, Prerequisite, ProcedureStep } from './procedure.schema.ts';
import type { BlackboardEntry, TaskContent } from './task.schema.ts';

/*
 * EXTRACTION FROM VERIFIED COLLABORATION (reference 001 §4.3 eq. 8, §B.5).
 *   V+ = the nodes whose action and outcome were verified (status `verified`: the manager verified the result);
 *   E+ = the task's prerequisite edges between two nodes of V+. An edge is supported because the graph declared
 *        it and execution honoured it (a node starts only once its prerequisites are verified); two steps that
 *        merely ran one after the other gain no edge: temporal order alone is not a prerequisite.
 * Each supported node becomes a step, keeping the procedure step id it was bound from (so a revision keeps its
 * ids) or else its node id; failures recorded on the blackboard become conditional warnings with the entry as
 * evidence (unless it reads as an instruction); the lessons given at completion are added as warnings too.
 */

export interface ExtractedStructure {
  readonly steps: ProcedureStep[];
  readonly prerequisites: Prerequisite[];
  readonly warnings: ConditionalWarning[];
  /** Nodes left out, unverified. */
  readonly unsupported: string[];
}

export interface EntryWithId {
  readonly id: string;
  readonly entry: BlackboardEntry;
}

const TRIGGER_MAX = 200;
const TEXT_MAX = 2_000;

export function extractSupportedStructure(
  taskId: string,
  task: TaskContent,
  entries: readonly EntryWithId[],
  lessons: readonly { readonly text: string; readonly trigger: string }[],
): ExtractedStructure {
  const supported = task.nodes.filter((node) => node.status === 'verified');
  const stepIdOf = new Map(supported.map((node) => [node.id, node.step ?? node.id]));
  const steps = supported.map((node) => ({ id: stepIdOf.get(node.id) as string, instruction: node.action }));
  const prerequisites = task.edges
    .filter((edge) => stepIdOf.has(edge.from) && stepIdOf.has(edge.to))
    .map((edge) => ({ from: stepIdOf.get(edge.from) as string, to: stepIdOf.get(edge.to) as string }));
  const actionOf = new Map(task.nodes.map((node) => [node.id, node.action]));
  // An error that reads as an instruction is an agent's text trying to steer later agents: it never becomes
  // guidance in the shared pool.
  const failures = entries
    .filter(({ entry }) => entry.entry === 'execution' && entry.error.trim().length > 0)
    .filter(({ entry }) => detectInstructionInjection(entry.error).verdict === 'clean')
    .map(({ id, entry }) => ({
      text: entry.error.trim().slice(0, TEXT_MAX),
      trigger: (actionOf.get(entry.node) ?? entry.node).trim().slice(0, TRIGGER_MAX),
      evidence: [`task:${taskId}`, `record:${id}`],
    }));
  const lessonWarnings = lessons.map((lesson) => ({
    text: lesson.text,
    trigger: lesson.trigger,
    evidence: [`task:${taskId}`],
  }));
  return {
    steps,
    prerequisites,
    warnings: [...failures, ...lessonWarnings],
    unsupported: task.nodes.filter((node) => node.status !== 'verified').map((node) => node.id),
  };
}

/** Warnings of `base` followed by those of `added` whose text it does not already hold (case-insensitive). */
export function mergeWarnings(
  base: readonly ConditionalWarning[],
  added: readonly ConditionalWarning[],
): ConditionalWarning[] {
  const known = new Set(base.map((warning) => warning.text.trim().toLowerCase()));
  const merged = [...base];
  for (const warning of added) {
    const key = warning.text.trim().toLowerCase();
    if (known.has(key)) continue;
    known.add(key);
    merged.push(warning);
  }
  return merged;
}
