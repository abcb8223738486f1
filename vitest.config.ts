import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every response of an in-process service is checked against its OpenAPI document (issue 19).
    setupFiles: ['test/contract/response-contract.setup.ts'],
  },
});
