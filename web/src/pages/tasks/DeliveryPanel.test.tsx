import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import type { DeliveryPackage } from '../../api/types';
import { DeliveryPanel } from './DeliveryPanel';
import { api } from '../../api/endpoints';

const packages = vi.hoisted(() => ({ items: [] as DeliveryPackage[] }));
vi.mock('../../api/endpoints', () => ({
  api: {
    tasks: {
      packages: async () => ({ items: packages.items, total: packages.items.length, page: 1, page_size: 5 }),
      createPackage: vi.fn(),
    },
    packages: { downloadToken: vi.fn(async () => ({ token: 'once' })), markDownloaded: vi.fn(async () => ({})) },
  },
}));

function pkg(id: number, over: Partial<DeliveryPackage>): DeliveryPackage {
  return {
    id,
    task_id: 7,
    status: 'ready',
    download_url: `/api/v1/delivery-packages/${id}/download`,
    expires_at: '2026-11-29T10:00:00.000Z',
    file_name: `task-${id}.zip`,
    size_bytes: 1024,
    note_ids: [],
    error: null,
    error_key: null,
    error_params: null,
    created_at: '2026-11-22T10:00:00.000Z',
    ready_at: '2026-11-22T10:00:00.000Z',
    ...over,
  };
}

describe('delivery packages', () => {
  it('offers download while a package can be downloaded, and says so when it has expired', async () => {
    packages.items = [pkg(2, {}), pkg(1, { download_url: null, expires_at: '2026-11-15T10:00:00.000Z' })];
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <DeliveryPanel taskId={7} status="approved" />
        </QueryClientProvider>
      </AppConfig>,
    );
    const rows = await screen.findAllByTestId('package-row');
    expect(rows).toHaveLength(2);
    const [live, expired] = rows as [HTMLElement, HTMLElement];
    expect((within(live).getByRole('button', { name: '下载' }) as HTMLButtonElement).disabled).toBe(false);
    expect(within(live).queryByTestId('package-expired')).toBeNull();
    expect((within(expired).getByRole('button', { name: '下载' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(expired).getByRole('button', { name: '标记已下载' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(expired).getByTestId('package-expired').textContent).toMatch(/过期/);
  });

  it('marks a ready package downloaded by itself once its download has started', async () => {
    packages.items = [pkg(3, {})];
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <DeliveryPanel taskId={7} status="approved" />
        </QueryClientProvider>
      </AppConfig>,
    );
    const row = await screen.findByTestId('package-row');
    fireEvent.click(within(row).getByRole('button', { name: '下载' }));
    await waitFor(() => expect(api.packages.markDownloaded).toHaveBeenCalledWith(3));
    expect(clicked).toHaveBeenCalled();
    clicked.mockRestore();
  });
});
