import { describe, expect, it } from 'vitest';
import { ChangeGate } from '../../../lambdas/local/engine-change-gate.ts';

/** Which of the given entries have been admitted so far (after pending microtasks ran). */
const admitted = async (entries: { admitted: boolean }[]) => {
  await new Promise((resolve) => setImmediate(resolve));
  return entries.map((entry) => entry.admitted);
};

const enter = (gate: ChangeGate, exclusive: boolean) => {
  const entry = { admitted: false, exclusive };
  void gate.enter(exclusive).then(() => {
    entry.admitted = true;
  });
  return entry;
};

describe('ChangeGate', () => {
  it('lets single-item changes run side by side', async () => {
    const gate = new ChangeGate();
    expect(await admitted([enter(gate, false), enter(gate, false), enter(gate, false)])).toEqual([true, true, true]);
  });

  it('holds a spanning change until every change in flight has left, and later ones until it has', async () => {
    const gate = new ChangeGate();
    const first = enter(gate, false);
    const second = enter(gate, false);
    const batch = enter(gate, true);
    const later = enter(gate, false);
    expect(await admitted([first, second, batch, later])).toEqual([true, true, false, false]);
    gate.leave(false);
    expect(await admitted([batch, later])).toEqual([false, false]);
    gate.leave(false);
    expect(await admitted([batch, later])).toEqual([true, false]);
    gate.leave(true);
    expect(await admitted([later])).toEqual([true]);
  });

  it('admits in arrival order: changes behind a waiting spanning change are not let past it', async () => {
    const gate = new ChangeGate();
    const inFlight = enter(gate, false);
    const batch = enter(gate, true);
    const behind = [enter(gate, false), enter(gate, false)];
    const secondBatch = enter(gate, true);
    expect(await admitted([inFlight, batch, ...behind, secondBatch])).toEqual([true, false, false, false, false]);
    gate.leave(false);
    expect(await admitted([batch, ...behind, secondBatch])).toEqual([true, false, false, false]);
    gate.leave(true);
    // Both single-item changes go together; the second batch waits for them.
    expect(await admitted([...behind, secondBatch])).toEqual([true, true, false]);
    gate.leave(false);
    gate.leave(false);
    expect(await admitted([secondBatch])).toEqual([true]);
  });

  it('runs exclusive work alone and frees the gate when that work fails', async () => {
    const gate = new ChangeGate();
    const inFlight = enter(gate, false);
    let ran = false;
    const work = gate.exclusively(async () => {
      ran = true;
      throw new Error('rewrite failed');
    });
    await admitted([inFlight]);
    expect(ran).toBe(false);
    gate.leave(false);
    await expect(work).rejects.toThrow('rewrite failed');
    expect(ran).toBe(true);
    expect(await admitted([enter(gate, true)])).toEqual([true]);
  });
});
