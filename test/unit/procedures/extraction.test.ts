import { describe, expect, it } from 'vitest';
import { extractSupportedStructure, mergeWarnings } from '../../../lambdas/capabilities/procedures/extraction.ts';
import type { BlackboardEntry, TaskContent } from '../../../lambdas/capabilities/procedures/task.schema.ts';

const task: TaskContent = {
  objective: 'Clean and store',
  constraints: [],
  facts: [],
  procedures: [],
  nodes: [
    { id: 'find', action: 'Find the cups', assignee: 'a', status: 'verified', step: 'find-cups' },
    { id: 'clean', action: 'Clean the cups', assignee: 'a', status: 'verified' },
    { id: 'fridge', action: 'Put the apple away', assignee: 'b', status: 'done' },
    { id: 'store', action: 'Store the cups', assignee: 'c', status: 'verified' },
  ],
  edges: [
    { from: 'find', to: 'clean' },
    { from: 'clean', to: 'fridge' },
    { from: 'fridge', to: 'store' },
  ],
  status: 'open',
  plan: 1,
};

const entry = (node: string, error = ''): BlackboardEntry => ({
  node,
  subtask: '',
  observation: '',
  action: '',
  result: '',
  error,
  outcome: 'observed',
  agent: 'a',
  entry: 'execution',
});

describe('Function: extractSupportedStructure (eq. 8)', () => {
  it('keeps verified nodes and the declared edges between them only, never an edge implied by order', () => {
    const structure = extractSupportedStructure('T1', task, [], []);
    expect(structure.steps).toEqual([
      { id: 'find-cups', instruction: 'Find the cups' },
      { id: 'clean', instruction: 'Clean the cups' },
      { id: 'store', instruction: 'Store the cups' },
    ]);
    // clean → fridge → store ran in order, but fridge is unverified: clean → store is not a prerequisite.
    expect(structure.prerequisites).toEqual([{ from: 'find-cups', to: 'clean' }]);
    expect(structure.unsupported).toEqual(['fridge']);
  });

  it('turns recorded failures and the given lessons into warnings with their evidence', () => {
    const structure = extractSupportedStructure(
      'T1',
      task,
      [
        { id: 'R1', entry: entry('clean', 'Stubborn stains: soak in warm water first') },
        { id: 'R2', entry: entry('clean') },
        { id: 'R3', entry: { ...entry('clean', 'not an execution'), entry: 'correction' } },
      ],
      [{ text: '"Found" does not mean "cleaned".', trigger: 'handover' }],
    );
    expect(structure.warnings).toEqual([
      {
        text: 'Stubborn stains: soak in warm water first',
        trigger: 'Clean the cups',
        evidence: ['task:T1', 'record:R1'],
      },
      { text: '"Found" does not mean "cleaned".', trigger: 'handover', evidence: ['task:T1'] },
    ]);
  });
});

describe('Function: mergeWarnings', () => {
  it('appends only warnings whose text is new, ignoring case and surrounding space', () => {
    const base = [{ text: 'Clean first.', trigger: 'storage', evidence: [] }];
    expect(
      mergeWarnings(base, [
        { text: ' clean FIRST. ', trigger: 'x', evidence: [] },
        { text: 'Verify the count.', trigger: 'y', evidence: [] },
      ]).map((warning) => warning.text),
    ).toEqual(['Clean first.', 'Verify the count.']);
  });
});
