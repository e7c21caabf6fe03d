/**
 * The fake image provider of bench/responsive in a process of its own, as a real provider is on
 * another machine: building each multi-megabyte reply (base64, JSON) takes the fake's event loop
 * 15-20 ms, which in the bench's process would be counted into the probe's latency.
 * Prints its URL and the sample image's size as one JSON line; answers `stats` messages.
 */
import { startFakeOpenAI } from '../../server/test/generation/fake-openai.js';

const fake = await startFakeOpenAI({ textLatencyMs: 300, imageLatencyMs: 800, photoImages: true });
const sample = await fake.imageOf('1024x1536', true);
process.on('message', (message) => {
  if (message === 'stats') process.send!({ images: fake.calls.filter((c) => c.kind === 'image' && c.status === 200).length });
});
process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
process.send!({ url: fake.url, sampleBytes: sample.length });
