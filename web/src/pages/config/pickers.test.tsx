import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import { ProductSelect } from './pickers';

// A workspace with more products than one page: the server searches names and counts matches.
const catalogue = vi.hoisted(() => Array.from({ length: 150 }, (_, i) => ({ id: i + 1, name: `产品${String(i + 1).padStart(3, '0')}` })));
vi.mock('../../api/endpoints', () => ({
  api: {
    products: {
      list: async ({ q, page_size }: { q?: string; page_size: number }) => {
        const matching = catalogue.filter((p) => !q || p.name.includes(q));
        return { items: matching.slice(0, page_size), total: matching.length, page: 1, page_size };
      },
      get: async (id: number) => catalogue.find((p) => p.id === id)!,
    },
  },
}));

const renderPicker = (value?: number) =>
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient()}>
        <ProductSelect value={value} aria-label="product" />
      </QueryClientProvider>
    </AppConfig>,
  );
const shownNames = () => [...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent);

describe('ProductSelect', () => {
  it('says how many products there are beyond the page, and finds any of them by name on the server', async () => {
    renderPicker();
    fireEvent.mouseDown(screen.getByRole('combobox'));
    expect((await screen.findByTestId('picker-more')).textContent).toBe('已显示 20 个，共 150 个：输入名称查找其余的');
    expect(shownNames()).not.toContain('产品137');
    fireEvent.change(screen.getByRole('combobox'), { target: { value: '137' } });
    await waitFor(() => expect(shownNames()).toEqual(['产品137']));
    expect(screen.queryByTestId('picker-more')).toBeNull();
  });

  it('shows a chosen product by its name even when it is not on the first page', async () => {
    renderPicker(140);
    await waitFor(() => expect(document.querySelector('.ant-select-content, .ant-select-selection-item')?.textContent).toBe('产品140'));
  });
});
