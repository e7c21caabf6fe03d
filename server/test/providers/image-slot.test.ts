import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerSettingsFrom } from '../../src/config.js';
import { createProviderFactory } from '../../src/providers/factory.js';
import { LocalProvider } from '../../src/providers/local/index.js';
import type { ImageRequest } from '../../src/providers/types.js';
import { json, startFakeProvider, type FakeProvider } from './fake-provider.js';

/**
 * `ImageRequest.slot`: the caller's pool (a task's images) holds the provider's own work only.
 * Normalising the reply happens after the slot is given back, so the next paid call of the
 * task does not wait for this one's CPU work.
 */
describe('image requests in a caller slot', () => {
  let fake: FakeProvider;
  let portrait: Buffer;

  beforeAll(async () => {
    fake = await startFakeProvider();
    portrait = await sharp({ create: { width: 1024, height: 1536, channels: 3, background: '#3a7bd5' } }).png().toBuffer();
  });
  afterAll(() => fake.close());

  /** A slot that records what ran inside it and what came out of it. */
  function recordingSlot() {
    const record = { entered: 0, inside: false, results: [] as unknown[], normalizedInside: undefined as boolean | undefined };
    const slot: NonNullable<ImageRequest['slot']> = async (work) => {
      record.entered += 1;
      record.inside = true;
      try {
        const result = await work();
        record.results.push(result);
        void (result as { normalizing?: Promise<unknown> }).normalizing?.then(() => (record.normalizedInside = record.inside));
        return result;
      } finally {
        record.inside = false;
      }
    };
    return { record, slot };
  }

  it('an OpenAI-compatible provider makes its request inside the slot and normalises the reply outside it', async () => {
    const { record, slot } = recordingSlot();
    let requestedInside: boolean | undefined;
    fake.handle((_req, res) => {
      requestedInside = record.inside;
      json(res, 200, { created: 1, data: [{ b64_json: portrait.toString('base64') }] });
    });
    const provider = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: `${fake.origin}/v1`, PROVIDER_MAX_RETRIES: '0' })).forCredentials({ keyId: 1, provider: 'openai', apiKey: 'sk-test-slot-0000' });
    const image = await provider.generateImage({ prompt: 'p', intent: { kind: 'free' }, slot });

    expect(requestedInside).toBe(true);
    expect(record.entered).toBe(1);
    // What left the slot is the reply still being normalised in an image thread; the 3:4 JPEG
    // was finished after the slot was given back.
    const left = record.results[0] as { normalizing?: Promise<unknown> };
    expect(left.normalizing).toBeInstanceOf(Promise);
    expect(record.normalizedInside).toBe(false);
    expect([image.mime, image.width, image.height]).toEqual(['image/jpeg', 1080, 1440]);
  });

  it('runs as many image requests at once as the provider allows, however few decoding threads there are', async () => {
    // The replies are decoded in at most two worker threads; the requests themselves must not
    // queue behind them (a queued request would spend its attempt's deadline waiting).
    let open = 0;
    let most = 0;
    const held: Array<() => void> = [];
    fake.handle((_req, res) => {
      open += 1;
      most = Math.max(most, open);
      held.push(() => {
        open -= 1;
        json(res, 200, { created: 1, data: [{ b64_json: portrait.toString('base64') }] });
      });
      // Answer only once all six are waiting at the provider at the same time.
      if (held.length === 6) for (const release of held.splice(0)) release();
    });
    const provider = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: `${fake.origin}/v1`, PROVIDER_MAX_RETRIES: '0', PROVIDER_CONCURRENCY: '6' })).forCredentials({ keyId: 1, provider: 'openai', apiKey: 'sk-test-slot-0000' });
    const images = await Promise.all(Array.from({ length: 6 }, () => provider.generateImage({ prompt: 'p', intent: { kind: 'free' } })));
    expect(most).toBe(6);
    expect(images.map((i) => [i.width, i.height])).toEqual(Array.from({ length: 6 }, () => [1080, 1440]));
  });

  it('gives up an unanswered image request at its deadline', async () => {
    // The request runs in a worker thread; only the abort reaching it there settles the call.
    let arrived = 0;
    fake.handle(() => {
      arrived += 1;
    });
    const provider = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: `${fake.origin}/v1`, PROVIDER_MAX_RETRIES: '0', PROVIDER_TIMEOUT_MS: '1000' })).forCredentials({ keyId: 1, provider: 'openai', apiKey: 'sk-test-slot-0000' });
    await expect(provider.generateImage({ prompt: 'p', intent: { kind: 'free' } })).rejects.toMatchObject({ kind: 'timeout' });
    expect(arrived).toBe(1);
  });

  it('the local provider draws its card inside the slot', async () => {
    const { record, slot } = recordingSlot();
    const input = { purpose: 'storyboard-image', strategy: 'A', role: 'hook', seq: 1, seed: 'slot', product_name: '晚安面膜', theme: '换季', brief: 'x', overlay: null, has_reference_image: false };
    const image = await new LocalProvider().generateImage({ prompt: 'p', intent: { kind: 'free', input }, slot });
    expect(record.entered).toBe(1);
    expect(record.results).toHaveLength(1);
    expect([image.mime, image.width, image.height]).toEqual(['image/jpeg', 1080, 1440]);
  });
});
