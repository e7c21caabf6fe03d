import { defineConfig } from 'vitest/config';

// The browser suite: each file starts its own server and Chromium and runs its steps in order.
// Files run one after another: two at once took 680 s against 722 s one by one on two cores
// (the server and Chromium keep both busy), and every wait in them grew twice as long.
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // A page follows the server within seconds, not the one second expect.poll waits by default
    // (a refetch on a busy machine takes longer): the same wait as a locator's, 15 s.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    fileParallelism: false,
    sequence: { concurrent: false },
    // Each step builds on the one before: after a failure the rest would only time out.
    bail: 1,
  },
});
