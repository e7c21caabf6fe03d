import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import type { Benchmark } from '../../api/types';
import { BenchmarksPanel } from './BenchmarksPanel';
import { HTTP_SCHEME } from '../admin/WebhooksPage';

const state = vi.hoisted(() => ({ items: [] as Benchmark[] }));
const calls = vi.hoisted(() => ({ create: vi.fn(), upload: vi.fn() }));
vi.mock('../../api/endpoints', () => ({
  api: {
    benchmarks: {
      list: async () => ({ items: state.items, total: state.items.length, page: 1, page_size: 20 }),
      analyze: vi.fn(),
      create: async (...a: unknown[]) => calls.create(...a),
      upload: calls.upload,
    },
  },
}));

function show() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient()}>
        <BenchmarksPanel productId={3} />
      </QueryClientProvider>
    </AppConfig>,
  );
}

const fallback = {
  id: 1,
  product_id: 3,
  screenshot_url: null,
  has_uploaded_screenshot: true,
  highlights: '',
  link_url: null,
  features: null,
  analyze_status: 'done',
  analysis_source: 'fallback',
  analysis_warning: null,
  analysis_warning_codes: [],
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
} as Benchmark;

describe('validation before sending', () => {
  it('an empty benchmark is not sent and says what is missing', async () => {
    state.items = [];
    show();
    fireEvent.click(await screen.findByRole('button', { name: /^添\s*加$/ }));
    expect(await screen.findByText('请至少填写亮点、链接或上传截图中的一项')).toBeTruthy();
    expect(calls.create).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('亮点摘录'), { target: { value: '保温六小时' } });
    fireEvent.click(screen.getByRole('button', { name: /^添\s*加$/ }));
    await waitFor(() => expect(calls.create).toHaveBeenCalledWith(3, { highlights: '保温六小时' }));
  });

  it('a fallback analysis is labelled by its real source, never 截图识别', async () => {
    state.items = [fallback];
    show();
    expect(await screen.findByText('来源：备用分析（按亮点）')).toBeTruthy();
    expect(screen.queryByText(/截图识别/)).toBeNull();
  });

  it('a webhook URL is checked for its scheme only: private addresses are the server’s to refuse', () => {
    expect(HTTP_SCHEME.test('http://10.0.0.5/hook')).toBe(true);
    expect(HTTP_SCHEME.test('http://localhost:8080/x')).toBe(true);
    expect(HTTP_SCHEME.test('ftp://example.com')).toBe(false);
    expect(HTTP_SCHEME.test('example.com/hook')).toBe(false);
  });
});
