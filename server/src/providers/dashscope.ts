import { downloadImage } from './download.js';
import type { AdapterDeps } from './openai-compatible.js';
import type { Preset } from './presets.js';
import { HttpStatusError, reliably, sleep } from './reliability.js';
import { ProviderError } from './types.js';

/**
 * DashScope's native API root for a compatible-mode base URL: `…/compatible-mode/v1` →
 * `…/api/v1` (so a PROVIDER_QWEN_BASE_URL override moves both).
 */
export function dashscopeNativeBase(compatibleBase: string): string {
  const url = new URL(compatibleBase);
  const prefix = url.pathname.replace(/\/compatible-mode\/v1\/?$/, '');
  return `${url.origin}${prefix === url.pathname ? '' : prefix}/api/v1`;
}

interface TaskReply {
  output?: { task_id?: string; task_status?: string; results?: Array<{ url?: string; code?: string; message?: string }>; code?: string; message?: string };
  code?: string;
  message?: string;
}

async function jsonCall(url: string, init: RequestInit & { signal: AbortSignal }): Promise<TaskReply> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as TaskReply;
      detail = [parsed.code, parsed.message].filter(Boolean).join(': ') || detail;
    } catch {
      // keep the raw text
    }
    throw new HttpStatusError(res.status, res.headers, detail);
  }
  return JSON.parse(text) as TaskReply;
}

/**
 * Qwen images (Wanx): the compatible mode has no image endpoint, so the task is submitted to
 * DashScope's asynchronous API and polled until it settles, within one overall deadline. Every
 * HTTP call has the usual retries; a FAILED task (moderation, bad parameter) is not retried.
 */
export async function submitAndPollDashscopeImage(
  preset: Preset,
  deps: AdapterDeps,
  req: { model: string; prompt: string; size: string; signal?: AbortSignal },
): Promise<Buffer> {
  const native = dashscopeNativeBase(preset.baseUrl);
  const headers = { authorization: `Bearer ${deps.apiKey}`, 'content-type': 'application/json' };
  const call = <T>(what: string, attempt: (signal: AbortSignal) => Promise<T>) =>
    reliably({ ...deps, provider: preset.label, what, signal: req.signal }, attempt);

  const submitted = await call('image generation', (signal) =>
    jsonCall(`${native}/services/aigc/text2image/image-synthesis`, {
      method: 'POST',
      headers: { ...headers, 'x-dashscope-async': 'enable' },
      body: JSON.stringify({
        model: req.model,
        input: { prompt: req.prompt },
        parameters: { size: req.size, n: 1, ...preset.features.noWatermark },
      }),
      signal,
    }),
  );
  const taskId = submitted.output?.task_id;
  if (!taskId) throw new ProviderError('invalid_output', `${preset.label} image generation answered without a task id`, preset.label);

  const deadline = Date.now() + deps.options.timeoutMs;
  for (;;) {
    const polled = await call('image task status', (signal) =>
      jsonCall(`${native}/tasks/${encodeURIComponent(taskId)}`, { method: 'GET', headers: { authorization: headers.authorization }, signal }),
    );
    const status = polled.output?.task_status;
    if (status === 'SUCCEEDED') {
      const link = polled.output?.results?.find((r) => r.url)?.url;
      if (!link) throw new ProviderError('invalid_output', `${preset.label} image task ${taskId} succeeded without an image link`, preset.label);
      return call('image download', (signal) => downloadImage(link, { provider: preset.label, providerBaseUrl: native, signal, timeoutMs: deps.options.timeoutMs }));
    }
    if (status === 'FAILED' || status === 'CANCELED' || status === 'UNKNOWN') {
      const why = [polled.output?.code, polled.output?.message].filter(Boolean).join(': ') || status;
      throw new ProviderError('bad_request', `${preset.label} image task ${taskId} ${status.toLowerCase()}: ${why}`, preset.label);
    }
    if (Date.now() + deps.pollIntervalMs > deadline) {
      throw new ProviderError('timeout', `${preset.label} image task ${taskId} did not finish in time: try again, or raise PROVIDER_TIMEOUT_MS`, preset.label);
    }
    await sleep(deps.pollIntervalMs, req.signal);
  }
}
