import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Two cores: more workers only adds contention (each API test file runs its own server).
    maxWorkers: 2,
    // One module graph per worker, not per file: re-importing the server for each of 100 files
    // was 440 s of a 1,060 s run (docs/performance.md). Files keep no state in modules they
    // share: each test world opens its own database, clock and queue.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
