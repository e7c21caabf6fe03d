import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import { FissionStart } from '../tasks/FissionStart';

const calls = vi.hoisted(() => ({ create: vi.fn(async () => ({ fission_id: 1 })) }));
vi.mock('../../api/endpoints', () => ({
  api: { fission: { list: async () => ({ items: [], total: 0, page: 1, page_size: 20 }), create: calls.create } },
}));

describe('starting a fission', () => {
  it('says the maximum for a count above 5 instead of clamping it', async () => {
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <MemoryRouter>
            <FissionStart taskId={9} canStart />
          </MemoryRouter>
        </QueryClientProvider>
      </AppConfig>,
    );
    fireEvent.click(screen.getByRole('button', { name: '发起裂变' }));
    const count = await screen.findByLabelText('裂变数量（1–5）');
    fireEvent.change(count, { target: { value: '7' } });
    fireEvent.blur(count);
    fireEvent.click(screen.getByRole('button', { name: '开始裂变' }));
    expect(await screen.findByText('裂变数量最多 5 篇')).toBeTruthy();
    expect((count as HTMLInputElement).value).toBe('7');
    expect(calls.create).not.toHaveBeenCalled();
    fireEvent.change(count, { target: { value: '5' } });
    fireEvent.click(screen.getByRole('button', { name: '开始裂变' }));
    await waitFor(() => expect(calls.create).toHaveBeenCalledWith(9, 'mid', 5, undefined));
  });
});
