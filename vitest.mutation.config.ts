import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/*
 * The tests StrykerJS runs against each mutant (`npm run mutation`, stryker.config.json): the unit, in-memory
 * contract and property tests of the mutated folders (identity, namespaces, records, protection, crypto) and
 * the cipher suites (the keyring's key store on the embedded engine: a few seconds). Everything else reaches
 * these folders only through a whole composed service and costs seconds per mutant, so the score is this
 * set's: a lower bound for the whole suite (MUTATION-TESTING.md). A spread, not mergeConfig, which would
 * append this include list to the base one rather than replace it.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/unit/kernel/**/*.test.ts',
      'test/unit/protection/**/*.test.ts',
      'test/unit/http/{authenticated-scope,entity-tags,handler-errors}.test.ts',
      'test/unit/adapters/{in-memory-record-storage,in-memory-idempotency-store,caching-content-cipher,local-kms,crypto-edges}.test.ts',
      'test/unit/learning/session-namespaces.test.ts',
      'test/property/{namespace,protection-injection,protection-screen}.property.test.ts',
      'test/integration/{content-ciphers,encryption-sdk-cipher,hierarchical-keys}.test.ts',
    ],
  },
});
