import { describe, expect, it } from 'vitest';
import { entityMentions } from '../../../lambdas/capabilities/retrieval/indexing/entity-mentions.ts';

describe('entityMentions', () => {
  it.each([
    [
      'names in a sentence, less a leading function word',
      'The Payments Team met Dana Scully in Lisbon.',
      ['payments team', 'dana scully', 'lisbon'],
    ],
    ['a name opening a sentence', 'Alice approved it.', ['alice']],
    [
      'identifiers with digits or inner capitals',
      'INC-4211 hit eu-west-1 and PostgreSQL',
      ['inc-4211', 'postgresql', 'eu-west-1'],
    ],
    ['handles and hashtags', 'ask @dana_s about #q3-roadmap', ['dana_s', 'q3-roadmap']],
    ['nothing in plain lower-case prose', 'we should book the hotel soon', []],
  ])('finds %s', (_, text, expected) => {
    // Act
    const mentions = entityMentions(text);

    // Assess
    expect([...mentions].sort()).toEqual([...expected].sort());
  });

  it('folds case, so two spellings are one mention', () => {
    expect(entityMentions('LISBON trip')).toEqual(entityMentions('Lisbon trip'));
  });
});
