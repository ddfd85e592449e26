import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParameterReadError, type ParameterReader } from '../../lambdas/adapters/config/parameter-reader.ts';

export interface ParameterSourceFixture {
  readonly reader: ParameterReader;
  /** Puts a value in the parameter, as an operator would. */
  publish(name: string, value: string): Promise<void>;
  /** Makes every read fail (SSM throttling or failing behind the reader), or read again. */
  breakSource(broken: boolean): Promise<void>;
  /** Makes every read hang until `close`. */
  hang(): Promise<void>;
  close(): Promise<void>;
}

const NAME = '/memory-hub/test/config';

/** What the failure of a read was, or undefined when it succeeded. */
const failureOf = (read: Promise<unknown>) =>
  read.then(
    () => undefined,
    (error: unknown) => error,
  );

/**
 * What every ParameterReader does: answers the value as written, the latest one, and fails with a
 * `ParameterReadError` (naming the parameter, never quoting a value) when the parameter cannot be read or the
 * caller gives up. Runs against the fake the unit tests use and the Parameters and Secrets extension's adapter.
 */
export const describeParameterReaderContract = (name: string, create: () => Promise<ParameterSourceFixture>) => {
  describe(`Contract: ParameterReader (${name})`, () => {
    let fixture: ParameterSourceFixture;

    beforeEach(async () => {
      fixture = await create();
    });

    afterEach(async () => {
      await fixture.close();
    });

    it('answers the value as written, and the latest one after a change', async () => {
      // Prepare
      const written = '{"listing":{"defaultPageSize":10},"note":"ünïcödé\\n & ?name=x"}';
      await fixture.publish(NAME, written);

      // Act
      const first = await fixture.reader.readParameter(NAME);
      await fixture.publish(NAME, '{}');
      const second = await fixture.reader.readParameter(NAME);

      // Assess
      expect(first).toBe(written);
      expect(second).toBe('{}');
    });

    it('fails with a ParameterReadError naming the parameter when it does not exist', async () => {
      // Act
      const failure = await failureOf(fixture.reader.readParameter('/memory-hub/test/missing'));

      // Assess
      expect(failure).toBeInstanceOf(ParameterReadError);
      expect(failure).toMatchObject({ parameterName: '/memory-hub/test/missing', reason: expect.any(String) });
    });

    it('fails while the source fails, without quoting the value, and reads again once it recovers', async () => {
      // Prepare
      await fixture.publish(NAME, '{"secret-looking":"value-1"}');
      await fixture.breakSource(true);

      // Act
      const failure = await failureOf(fixture.reader.readParameter(NAME));
      await fixture.breakSource(false);
      const recovered = await fixture.reader.readParameter(NAME);

      // Assess
      expect(failure).toBeInstanceOf(ParameterReadError);
      expect(String((failure as Error).message)).not.toContain('value-1');
      expect(recovered).toBe('{"secret-looking":"value-1"}');
    });

    it('gives up a read that does not answer when its signal aborts', async () => {
      // Prepare
      await fixture.publish(NAME, '{}');
      await fixture.hang();
      const startedAt = performance.now();

      // Act
      const failure = await failureOf(fixture.reader.readParameter(NAME, { signal: AbortSignal.timeout(30) }));

      // Assess
      expect(failure).toBeInstanceOf(ParameterReadError);
      expect(performance.now() - startedAt).toBeLessThan(1000);
    });
  });
};
