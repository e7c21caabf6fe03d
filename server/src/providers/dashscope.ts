import { downloadImage } from './download.js';
import { readFailure } from './errors.js';
import type { AdapterDeps } from './openai-compatible.js';
import { HttpStatusError, reliably, sleep, type CallContext } from './reliability.js';
import { ProviderError, type ImageInput } from './types.js';

/**
 * DashScope's native API root for a compatible-mode base URL: `…/compatible-mode/v1` →
 * `…/api/v1` (so a regional endpoint such as dashscope-intl moves both).
 */
export function dashscopeNativeBase(compatibleBase: string): string {
  const url = new URL(compatibleBase);
  const prefix = url.pathname.replace(/\/compatible-mode\/v1\/?$/, '');
  return `${url.origin}${prefix === url.pathname ? '' : prefix}/api/v1`;
}

export interface DashscopeEndpoint {
  baseUrl: string;
  label: string;
  noWatermark: Record<string, unknown>;
}

interface TaskReply {
  output?: {
    task_id?: string;
    task_status?: string;
    results?: Array<{ url?: string; code?: string; message?: string }>;
    choices?: Array<{ message?: { content?: Array<{ image?: string }> } }>;
    code?: string;
    message?: string;
  };
  code?: string;
  message?: string;
}

async function jsonCall(fetchImpl: AdapterDeps['fetch'], url: string, init: RequestInit & { signal: AbortSignal }): Promise<TaskReply> {
  const res = await fetchImpl(url, init);
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 300);
    let body: unknown;
    try {
      body = JSON.parse(text) as TaskReply;
      const parsed = body as TaskReply;
      detail = [parsed.code, parsed.message].filter(Boolean).join(': ') || detail;
    } catch {
      // keep the raw text
    }
    throw new HttpStatusError(res.status, res.headers, detail, body);
  }
  return JSON.parse(text) as TaskReply;
}

function failedTask(endpoint: DashscopeEndpoint, what: string, code: string | undefined, message: string | undefined): ProviderError {
  // A settled task's code is read like an HTTP error body (DataInspectionFailed, Arrearage, ...).
  const reading = readFailure(400, { code, message });
  const why = [code, message].filter(Boolean).join(': ') || 'no reason given';
  return new ProviderError(reading.kind, `${endpoint.label} ${what} failed: ${why}`, endpoint.label);
}

/**
 * Wan text-to-image: the compatible mode has no image endpoint, so the task is submitted to
 * DashScope's asynchronous API and polled until it settles, within one overall deadline. Every
 * HTTP call has the usual retries; a FAILED task (moderation, arrears) is not retried.
 */
export async function submitAndPollDashscopeImage(
  endpoint: DashscopeEndpoint,
  deps: AdapterDeps,
  req: { model: string; prompt: string; negativePrompt?: string | undefined; size: string; signal?: AbortSignal },
): Promise<Buffer> {
  const native = dashscopeNativeBase(endpoint.baseUrl);
  const headers = { authorization: `Bearer ${deps.apiKey}`, 'content-type': 'application/json' };
  // Image calls cost requests only; status polls and downloads from OSS links are not counted by the API's rate limit.
  const call = <T>(what: string, attempt: (signal: AbortSignal) => Promise<T>, cost: CallContext['cost'] = { tokens: 0 }) => reliably({ ...deps, provider: endpoint.label, what, signal: req.signal, cost }, attempt);

  const submitted = await call('image generation', (signal) =>
    jsonCall(deps.fetch, `${native}/services/aigc/text2image/image-synthesis`, {
      method: 'POST',
      headers: { ...headers, 'x-dashscope-async': 'enable' },
      // Wan takes its negative prompt beside the prompt, in `input`.
      body: JSON.stringify({ model: req.model, input: { prompt: req.prompt, ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}) }, parameters: { size: req.size, n: 1, ...endpoint.noWatermark } }),
      signal,
    }),
  );
  const taskId = submitted.output?.task_id;
  if (!taskId) throw new ProviderError('bad_output', `${endpoint.label} image generation answered without a task id`, endpoint.label);

  const deadline = Date.now() + deps.options.timeoutMs;
  for (;;) {
    const polled = await call(
      'image task status',
      (signal) => jsonCall(deps.fetch, `${native}/tasks/${encodeURIComponent(taskId)}`, { method: 'GET', headers: { authorization: headers.authorization }, signal }),
      'unpaced',
    );
    const status = polled.output?.task_status;
    if (status === 'SUCCEEDED') {
      const result = polled.output?.results?.[0];
      const link = result?.url;
      if (!link) throw result?.code ? failedTask(endpoint, `image task ${taskId}`, result.code, result.message) : new ProviderError('bad_output', `${endpoint.label} image task ${taskId} succeeded without an image link`, endpoint.label);
      return call('image download', (signal) => downloadImage(link, { provider: endpoint.label, providerBaseUrl: native, reach: deps.reach, signal, timeoutMs: deps.options.timeoutMs }), 'unpaced');
    }
    if (status === 'FAILED' || status === 'CANCELED' || status === 'UNKNOWN') {
      throw failedTask(endpoint, `image task ${taskId} (${status.toLowerCase()})`, polled.output?.code, polled.output?.message);
    }
    if (Date.now() + deps.pollIntervalMs > deadline) {
      throw new ProviderError('timeout', `${endpoint.label} image task ${taskId} did not finish in time`, endpoint.label);
    }
    await sleep(deps.pollIntervalMs, req.signal);
  }
}

/**
 * DashScope's synchronous multimodal image call, which answers with the image's link: Qwen image
 * editing (the product photos, the role's best first, and the prompt in one message) and Wan 2.6+ text-to-image (the
 * prompt alone). The size is sent whenever known, so the picture comes out in the wanted ratio.
 */
export async function dashscopeSyncImage(
  endpoint: DashscopeEndpoint,
  deps: AdapterDeps,
  req: { model: string; prompt: string; negativePrompt?: string | undefined; references?: ImageInput[]; size?: string; signal?: AbortSignal },
): Promise<Buffer> {
  const native = dashscopeNativeBase(endpoint.baseUrl);
  // Image calls cost requests only; status polls and downloads from OSS links are not counted by the API's rate limit.
  const call = <T>(what: string, attempt: (signal: AbortSignal) => Promise<T>, cost: CallContext['cost'] = { tokens: 0 }) => reliably({ ...deps, provider: endpoint.label, what, signal: req.signal, cost }, attempt);
  const references = req.references ?? [];
  const what = references.length > 0 ? 'image editing' : 'image generation';
  const reply = await call('image generation', (signal) =>
    jsonCall(deps.fetch, `${native}/services/aigc/multimodal-generation/generation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${deps.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: req.model,
        input: {
          messages: [
            {
              role: 'user',
              content: [...references.map((r) => ({ image: `data:${r.mime};base64,${r.data.toString('base64')}` })), { text: req.prompt }],
            },
          ],
        },
        // On this endpoint the negative prompt is among the parameters.
        parameters: { n: 1, ...(req.size ? { size: req.size } : {}), ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}), ...endpoint.noWatermark },
      }),
      signal,
    }),
  );
  const link = reply.output?.choices?.[0]?.message?.content?.find((c) => c.image)?.image;
  if (!link) {
    if (reply.code) throw failedTask(endpoint, what, reply.code, reply.message);
    throw new ProviderError('bad_output', `${endpoint.label} ${what} answered without an image`, endpoint.label);
  }
  return call('image download', (signal) => downloadImage(link, { provider: endpoint.label, providerBaseUrl: native, reach: deps.reach, signal, timeoutMs: deps.options.timeoutMs }), 'unpaced');
}
