import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import type { Benchmark } from '../../api/types';
import { BenchmarksPanel } from './BenchmarksPanel';

const state = vi.hoisted(() => ({ items: [] as Benchmark[] }));
vi.mock('../../api/endpoints', () => ({
  api: {
    benchmarks: {
      list: async () => ({ items: state.items, total: state.items.length, page: 1, page_size: 20 }),
      analyze: vi.fn(),
      create: vi.fn(),
      upload: vi.fn(),
    },
  },
}));

function benchmark(over: Partial<Benchmark>): Benchmark {
  return {
    id: 1,
    product_id: 3,
    screenshot_url: null,
    has_uploaded_screenshot: false,
    highlights: '亮点',
    link_url: null,
    features: null,
    analyze_status: 'done',
    analysis_source: 'fallback',
    analysis_warning: null,
    analysis_warning_codes: [],
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
    ...over,
  };
}

function show() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient()}>
        <BenchmarksPanel productId={3} />
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('benchmark analysis warnings', () => {
  afterEach(async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
  });

  it('are worded by code in the interface language, never as the server sent a network error', async () => {
    state.items = [benchmark({ analysis_warning: '链接无法访问；已根据人工亮点生成备用分析', analysis_warning_codes: ['link_unreachable', 'fallback_used'] })];
    show();
    expect(await screen.findByText('链接无法访问；已根据人工亮点生成备用分析')).toBeTruthy();
    await act(() => i18n.changeLanguage('en'));
    expect(await screen.findByText('The link could not be reached; A fallback analysis was written from the highlights')).toBeTruthy();
  });

  it('fall back to the server text for a code this client does not know yet', async () => {
    state.items = [benchmark({ analysis_warning: '一个新的原因', analysis_warning_codes: ['some_new_reason'] })];
    show();
    expect(await screen.findByText('一个新的原因')).toBeTruthy();
  });
});
