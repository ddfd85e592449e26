import { describe, expect, it } from 'vitest';
import {
  conflictingKeys,
  resolveKey,
  type StateEvidence,
} from '../../../lambdas/capabilities/procedures/state-resolution.ts';

const evidence = (item: Partial<StateEvidence>): StateEvidence => ({
  key: 'order-7.payment',
  value: 'unpaid',
  tier: 'tool_observation',
  source: 'agent-a',
  observedAt: '2026-12-01T10:00:00.000Z',
  confidence: 0.9,
  ...item,
});

describe('Function: resolveKey', () => {
  it('takes the highest tier: authoritative state over a tool observation and an inference', () => {
    const resolution = resolveKey('order-7.payment', [
      evidence({ value: 'unpaid', tier: 'agent_inference', source: 'agent-a' }),
      evidence({ value: 'unpaid', tier: 'tool_observation', source: 'agent-b' }),
      evidence({
        value: 'paid',
        tier: 'authoritative',
        source: 'payments-api',
        observedAt: '2026-12-01T09:00:00.000Z',
      }),
    ]);
    expect(resolution).toMatchObject({
      status: 'resolved',
      value: 'paid',
      tier: 'authoritative',
      sources: ['payments-api'],
    });
  });

  it('ignores evidence below the 0.70 confidence cut-off, and is unresolved with none left', () => {
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'paid', tier: 'authoritative', confidence: 0.69 }),
        evidence({ value: 'unpaid', tier: 'tool_observation', confidence: 0.7 }),
      ]),
    ).toMatchObject({ status: 'resolved', value: 'unpaid', tier: 'tool_observation' });
    expect(resolveKey('order-7.payment', [evidence({ confidence: 0.5 })])).toEqual({
      key: 'order-7.payment',
      status: 'unresolved',
      reason: 'no_eligible_evidence',
      next: 'observe',
    });
  });

  it('takes the latest observation of one source and tier', () => {
    const resolution = resolveKey('order-7.payment', [
      evidence({ value: 'unpaid', observedAt: '2026-12-01T10:00:00.000Z' }),
      evidence({ value: 'paid', observedAt: '2026-12-01T10:05:00.000Z', confidence: 0.71 }),
    ]);
    expect(resolution).toMatchObject({ status: 'resolved', value: 'paid', reobserve: false });
  });

  it('compares observation times as instants, whatever their precision', () => {
    // .500Z is later than :00Z though it sorts before it as text; .5Z and .500Z are one instant.
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'sink', observedAt: '2026-12-01T10:00:00.500Z' }),
        evidence({ value: 'fridge', observedAt: '2026-12-01T10:00:00Z' }),
      ]),
    ).toMatchObject({ status: 'resolved', value: 'sink' });
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'sink', observedAt: '2026-12-01T10:00:00.5Z' }),
        evidence({ value: 'fridge', observedAt: '2026-12-01T10:00:00.500Z' }),
      ]),
    ).toMatchObject({ status: 'unresolved', reason: 'tie' });
  });

  it('leaves a tie at the same instant unresolved', () => {
    expect(
      resolveKey('order-7.payment', [evidence({ value: 'unpaid' }), evidence({ value: 'paid', confidence: 0.99 })]),
    ).toMatchObject({ status: 'unresolved', reason: 'tie', next: 'observe' });
  });

  it('leaves a conflict across sources of the top tier unresolved, asking for a fresh observation', () => {
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'unpaid', source: 'agent-a' }),
        evidence({ value: 'paid', source: 'agent-b', observedAt: '2026-12-01T11:00:00.000Z' }),
      ]),
    ).toMatchObject({
      status: 'unresolved',
      reason: 'conflicting_sources',
      next: 'fresh_authoritative_or_tool_observation',
    });
  });

  it('never establishes external state from inference alone', () => {
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'paid', tier: 'agent_inference', source: 'agent-a' }),
        evidence({ value: 'paid', tier: 'agent_inference', source: 'agent-b' }),
      ]),
    ).toMatchObject({ status: 'unresolved', reason: 'inference_only', next: 'observe' });
  });

  it('asks to observe again when a newer lower-tier report contradicts the resolved value', () => {
    expect(
      resolveKey('order-7.payment', [
        evidence({ value: 'paid', tier: 'authoritative', source: 'payments-api' }),
        evidence({ value: 'unpaid', source: 'agent-b', observedAt: '2026-12-01T12:00:00.000Z' }),
      ]),
    ).toMatchObject({ status: 'resolved', value: 'paid', reobserve: true });
  });
});

describe('Function: conflictingKeys', () => {
  it('lists the keys with eligible evidence of two values, whatever the tiers (C_s)', () => {
    expect(
      conflictingKeys([
        evidence({ value: 'paid', tier: 'authoritative' }),
        evidence({ value: 'unpaid', tier: 'agent_inference' }),
        evidence({ key: 'cup.location', value: 'sink' }),
        evidence({ key: 'cup.location', value: 'table', confidence: 0.2 }),
      ]),
    ).toEqual(['order-7.payment']);
  });
});
