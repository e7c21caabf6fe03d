import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LocalImageFailures } from '../../src/config.js';
import { LocalProvider } from '../../src/providers/local/index.js';
import { ProviderError } from '../../src/providers/types.js';

/** LOCAL_PROVIDER_IMAGE_FAILURES: how it is read, and what the local provider does with it. */
describe('the local provider fault switch', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-faults-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const read = (value: string | undefined) =>
    loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'j', SECRET_KEY: 's', ...(value === undefined ? {} : { LOCAL_PROVIDER_IMAGE_FAILURES: value }) }).localImageFailures;

  it('is off by default and reads N, task:N and fission:N', () => {
    expect(read(undefined)).toEqual({ count: 0, origin: undefined });
    expect(read('')).toEqual({ count: 0, origin: undefined });
    expect(read('3')).toEqual({ count: 3, origin: undefined });
    expect(read('task:1')).toEqual({ count: 1, origin: 'task' });
    expect(read(' fission:2 ')).toEqual({ count: 2, origin: 'fission' });
  });

  it('refuses anything else at start', () => {
    for (const bad of ['-1', '1.5', 'x', 'fission:', 'image:2', 'fission:-1', 'fission:2:3']) {
      expect(() => read(bad), bad).toThrow(ConfigError);
      expect(() => read(bad), bad).toThrow(`LOCAL_PROVIDER_IMAGE_FAILURES must be N, task:N or fission:N (N a non-negative integer), got "${bad.trim()}"`);
    }
  });

  const image = (provider: LocalProvider, seed: string) =>
    provider.generateImage({
      prompt: 'p',
      intent: { kind: 'free', input: { purpose: 'storyboard-image', strategy: 'A', role: 'hook', seq: 1, seed, product_name: '晚安面膜', theme: '换季', brief: 'x', overlay: null, has_reference_image: false } },
    });
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (err: unknown) => (err instanceof ProviderError ? `${err.kind}: ${err.message}` : `unexpected: ${String(err)}`),
    );
  const failures = (count: number, origin?: LocalImageFailures['origin']) => new LocalProvider({ imageFailures: { count, origin } });

  it('fails the first N image calls of any origin with a provider error, then draws again', async () => {
    const provider = failures(2);
    const results = [];
    for (const seed of ['task:1:gen:1:A:1', 'fission:1:1:1', 'fission:1:1:1']) results.push(await outcome(image(provider, seed)));
    expect(results).toEqual([
      'unavailable: local provider: injected image failure 1 of 2 (LOCAL_PROVIDER_IMAGE_FAILURES)',
      'unavailable: local provider: injected image failure 2 of 2 (LOCAL_PROVIDER_IMAGE_FAILURES)',
      'ok',
    ]);
  });

  it('with an origin, counts and fails only the images of that origin', async () => {
    const provider = failures(1, 'fission');
    const results = [];
    for (const seed of ['task:1:gen:1:A:1', 'fission:1:1:1', 'task:1:gen:1:B:1', 'fission:1:1:1']) results.push(await outcome(image(provider, seed)));
    expect(results).toEqual(['ok', 'unavailable: local provider: injected image failure 1 of 1 (LOCAL_PROVIDER_IMAGE_FAILURES)', 'ok', 'ok']);
  });

  it('never fails without the switch, nor with a count of 0', async () => {
    for (const provider of [new LocalProvider(), failures(0)]) expect(await outcome(image(provider, 'fission:1:1:1'))).toBe('ok');
  });
});
