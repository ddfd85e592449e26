import { describe, expect, it } from 'vitest';
import { chainsOf, scanDigitRuns } from '../../../lambdas/kernel/protection/digit-runs.ts';

describe('Function: scanDigitRuns', () => {
  it('reads groups joined by single spaces, hyphens or dots', () => {
    const [run] = scanDigitRuns('card 4111 1111-1111.1111 end');

    expect(run?.groups.map((group) => [group.separatorBefore, group.digits])).toEqual([
      ['', '4111'],
      [' ', '1111'],
      ['-', '1111'],
      ['.', '1111'],
    ]);
    expect(run).toMatchObject({ gluedStart: false, gluedEnd: false, attachedStart: false, attachedEnd: false });
  });

  it('tells runs glued or attached to a larger token', () => {
    const [glued, attached, timestamp] = scanDigitRuns('ORD4111111111111111x, ORD-555-1234, 2026-11-30T10');

    expect(glued).toMatchObject({ gluedStart: true, gluedEnd: true });
    expect(attached).toMatchObject({ gluedStart: false, attachedStart: true, attachedEnd: false });
    expect(timestamp).toMatchObject({ attachedEnd: true });
  });

  it('ends a run at a double separator', () => {
    expect(scanDigitRuns('12 34  56 78').map((run) => run.groups.length)).toEqual([2, 2]);
  });

  it('skips single groups too short to hold an identifier', () => {
    expect(scanDigitRuns('42 apples, 2026, 123456789012, 12 34 and 1234567890123')).toHaveLength(2);
  });
});

describe('Function: chainsOf', () => {
  it('splits a run where its separator changes', () => {
    const [run] = scanDigitRuns('call 555-123-4567 2 times');
    if (run === undefined) throw new Error('no run');

    expect(chainsOf(run).map((chain) => [chain.separator, chain.lengths])).toEqual([
      ['-', [3, 3, 4]],
      [' ', [4, 1]],
    ]);
  });

  it('answers one chain for a single group', () => {
    const [run] = scanDigitRuns('n=4111111111111111');
    if (run === undefined) throw new Error('no run');

    expect(chainsOf(run)).toEqual([
      { lengths: [16], digits: '4111111111111111', separator: '', attachedStart: false, attachedEnd: false },
    ]);
  });
});
