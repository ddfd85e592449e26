import { ParameterReadError, type ParameterReader } from '../../lambdas/adapters/config/parameter-reader.ts';

/**
 * Stands in for Parameter Store behind a `ParameterReader`: parameters by name, a switch to make every read fail
 * (with the reason the real reader would give), one to hold every answer until the test releases it (or the
 * caller aborts), and one to make reads that never answer. Counts every read. `test/contract/parameter-reader.contract.ts`
 * runs it against the extension's adapter, so the two answer alike.
 */
export class FakeParameterReader implements ParameterReader {
  readonly requests: string[] = [];
  readonly #values = new Map<string, string>();
  /** Every read fails with this reason while it is set. */
  failure: string | undefined;
  /** Reads made while this is set never answer, unless their caller aborts them. */
  hanging = false;
  #held: (() => void)[] | undefined;

  publish(name: string, value: string): void {
    this.#values.set(name, value);
  }

  /** From now on answers wait until `release()`; a caller's abort signal still ends its own wait. */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const answer of held) answer();
  }

  async readParameter(name: string, options: { readonly signal?: AbortSignal } = {}): Promise<string> {
    this.requests.push(name);
    // A real reader answers asynchronously; so does the fake, so concurrent callers really overlap.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.#held || this.hanging) {
      const held = this.hanging ? [] : (this.#held ?? []);
      await new Promise<void>((resolve, reject) => {
        held.push(resolve);
        options.signal?.addEventListener('abort', () => reject(new ParameterReadError(name, 'aborted')));
      });
    }
    if (this.failure) throw new ParameterReadError(name, this.failure);
    const value = this.#values.get(name);
    if (value === undefined) throw new ParameterReadError(name, 'extension answered 400');
    return value;
  }
}
