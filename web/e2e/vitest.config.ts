import { defineConfig } from 'vitest/config';

// The browser suite: one real server, one real Chromium, steps in order.
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    sequence: { concurrent: false },
    // Each step builds on the one before: after a failure the rest would only time out.
    bail: 1,
  },
});
