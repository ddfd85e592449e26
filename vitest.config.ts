import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration and API tests start an embedded DynamoDB engine each; two cores are all we have.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    allowOnly: false,
  },
});
