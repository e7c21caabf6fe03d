import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const record = { entered: 0, inside: false, results: [] as unknown[] };
    const slot: NonNullable<ImageRequest['slot']> = async (work) => {
      record.entered += 1;
      record.inside = true;
      try {
        const result = await work();
        record.results.push(result);
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
    const provider = createProviderFactory({ PROVIDER_OPENAI_BASE_URL: `${fake.origin}/v1`, PROVIDER_MAX_RETRIES: '0' }).forCredentials({ keyId: 1, provider: 'openai', apiKey: 'sk-test-slot-0000' });
    const image = await provider.generateImage({ prompt: 'p', intent: { kind: 'free' }, slot });

    expect(requestedInside).toBe(true);
    expect(record.entered).toBe(1);
    // What left the slot is the provider's own PNG; the 3:4 JPEG was made after it.
    expect(Buffer.isBuffer(record.results[0]) && (record.results[0] as Buffer).equals(portrait)).toBe(true);
    expect([image.mime, image.width, image.height]).toEqual(['image/jpeg', 1080, 1440]);
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
