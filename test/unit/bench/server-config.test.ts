import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FULL } from '../../../bench/bench-options.ts';
import { parseConfig } from '../../../lambdas/app/service-tables.ts';
import { DEFAULT_LOCAL_CLIENT } from '../../../lambdas/local/local-issuer.ts';

describe('Document: bench/server-config.json', () => {
  it('raises the load generator’s client above every rate the bench asks for, leaving the lease size at its default', async () => {
    // Prepare
    const path = 'bench/server-config.json';
    const config = parseConfig(JSON.parse(await readFile(path, 'utf8')), path);
    const { ceiling, learningCeiling, load } = FULL;
    const highestRate = Math.max(
      load.ratePerSecond,
      ...[ceiling, learningCeiling].map(
        (search) => search.startRatePerSecond + search.stepRatePerSecond * search.maxSteps,
      ),
    );

    // Assess: the bench's tokens carry the local issuer's default client
    expect(config.throttle.clients[DEFAULT_LOCAL_CLIENT]?.requestsPerSecond).toBeGreaterThan(highestRate);
    expect(config.throttle.leaseSize).toBe(parseConfig({}, 'defaults').throttle.leaseSize);
  });
});
