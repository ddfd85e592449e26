import type { IConstruct } from 'constructs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFixtureApp, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';
import { logicalIdOf } from './support/template-queries.ts';

/** ReservedConcurrentExecutions of every function in the template, by logical id (undefined: unreserved). */
function reservationsOf(synthesized: SynthesizedApp): Map<string, number | undefined> {
  return new Map(
    Object.entries(synthesized.template.findResources('AWS::Lambda::Function')).map(([id, resource]) => [
      id,
      resource.Properties.ReservedConcurrentExecutions as number | undefined,
    ]),
  );
}

const idOf = (serviceFunction: { function: IConstruct }) => logicalIdOf(serviceFunction.function);

describe('Function: reserveConcurrency (through the app)', () => {
  let synthesized: SynthesizedApp | undefined;
  afterEach(() => synthesized?.dispose());

  it('reserves nothing by default, so the stack deploys in a new account whatever its quota', () => {
    // Act
    synthesized = synthesizeApp();

    // Assess
    const reservations = reservationsOf(synthesized);
    expect(reservations.size).toBeGreaterThan(5);
    expect([...reservations.values()].filter((value) => value !== undefined)).toEqual([]);
  });

  it('reserves the recommended share when told so by context: each consumer 10, the sweep 1, nothing else', () => {
    // Act
    synthesized = synthesizeApp({ context: { reservedConcurrency: 'recommended' } });

    // Assess
    const { stack } = synthesized;
    const expected = new Map<string, number>([
      ...[...stack.eventConsumers.byHandler.values()].map((consumer) => [idOf(consumer.consumer), 10] as const),
      [idOf(stack.outboxRelay.sweep), 1],
    ]);
    for (const [id, reserved] of reservationsOf(synthesized))
      expect({ id, reserved }).toEqual({ id, reserved: expected.get(id) });
  });

  it('reserves each function of a group what the prop gives the group', () => {
    // Act
    synthesized = synthesizeApp({ appOptions: { reservedConcurrency: { api: 7, workflowStep: 2 } } });

    // Assess
    const { stack } = synthesized;
    const reservations = reservationsOf(synthesized);
    for (const serviceFunction of stack.apiFunctions.functions.values())
      expect(reservations.get(idOf(serviceFunction))).toBe(7);
    expect(reservations.get(idOf(stack.workflows.stepRunner))).toBe(2);
    expect(reservations.get(idOf(stack.outboxRelay.relay))).toBeUndefined();
    expect(reservations.get(idOf(stack.identity.preTokenGeneration))).toBeUndefined();
  });

  it('refuses a reservation that would leave the account fewer than 100 unreserved executions', () => {
    // Prepare
    const build = (options: Parameters<typeof buildFixtureApp>[0]) => () => buildFixtureApp(options);

    // Act & Assess: the fixture document has six API functions
    expect(build({ reservedConcurrency: { api: 150 } })).not.toThrow();
    expect(build({ reservedConcurrency: { api: 151 } })).toThrow(
      /reserves 906 executions; an account of 1000 must keep 100 unreserved, so at most 900 can be reserved/,
    );
    expect(build({ reservedConcurrency: 'recommended', accountConcurrency: 110 })).toThrow(
      /reserves 21 executions; an account of 110 must keep 100 unreserved, so at most 10 can be reserved/,
    );
  });

  it('refuses zero (which switches a function off), fractions and groups it does not know', () => {
    // Prepare
    const build = (reservedConcurrency: unknown) => () =>
      buildFixtureApp({ reservedConcurrency: reservedConcurrency as Record<string, number> });

    // Act & Assess
    expect(build({ consumer: 0 })).toThrow(/reservedConcurrency.consumer must be a whole number of at least 1, not 0/);
    expect(build({ sweep: 1.5 })).toThrow(/reservedConcurrency.sweep must be a whole number/);
    expect(build({ everything: 5 })).toThrow(/reservedConcurrency names "everything", not one of api, consumer/);
  });

  it('reads JSON from context, as `-c reservedConcurrency={"api":5}` passes it', () => {
    // Act
    synthesized = synthesizeApp({ context: { reservedConcurrency: '{"api":5}', accountConcurrency: '2000' } });

    // Assess
    for (const serviceFunction of synthesized.stack.apiFunctions.functions.values())
      expect(reservationsOf(synthesized).get(idOf(serviceFunction))).toBe(5);
  });
});
