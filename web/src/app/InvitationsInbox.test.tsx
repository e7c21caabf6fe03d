import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../i18n';
import { AppConfig } from './AppConfig';
import type { MyInvitation } from '../api/types';
import { InvitationsInbox } from './InvitationsInbox';

const state = vi.hoisted(() => ({ items: [] as MyInvitation[], accept: vi.fn(), decline: vi.fn(), redeem: vi.fn() }));
vi.mock('../api/endpoints', () => ({
  api: {
    invitations: {
      mine: async () => ({ items: state.items, total: state.items.length, page: 1, page_size: 100 }),
      accept: (id: number) => state.accept(id),
      decline: (id: number) => state.decline(id),
      redeem: (token: string) => state.redeem(token),
    },
  },
}));

const invitation = (id: number, name: string): MyInvitation => ({
  id,
  workspace: { id: 10 + id, name, slug: `ws-${id}` },
  role: 'supervisor',
  invited_by: 'boss',
  created_at: '2026-11-24T10:00:00.000Z',
  expires_at: '2026-12-01T10:00:00.000Z',
});

describe('invitations inbox', () => {
  it('shows how many invitations wait, and accepts or declines each', async () => {
    state.items = [invitation(1, '华东团队'), invitation(2, '华南团队')];
    state.accept.mockImplementation(async (id: number) => {
      state.items = state.items.filter((i) => i.id !== id);
      return { id: 11, name: '华东团队', slug: 'ws-1', role: 'supervisor' };
    });
    state.decline.mockImplementation(async (id: number) => {
      state.items = state.items.filter((i) => i.id !== id);
      return {};
    });
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <InvitationsInbox />
        </QueryClientProvider>
      </AppConfig>,
    );
    const button = await screen.findByTestId('invitations-button');
    await waitFor(() => expect(button.parentElement!.textContent).toContain('2'));
    fireEvent.click(button);
    const inbox = await screen.findByTestId('invitation-inbox');
    expect(within(inbox).getByText('华东团队')).toBeTruthy();
    expect(within(inbox).getAllByText('boss 邀请你以主管身份加入')).toHaveLength(2);
    const [first] = within(inbox).getAllByRole('button', { name: '接受' });
    fireEvent.click(first!);
    await waitFor(() => expect(state.accept).toHaveBeenCalledWith(1));
    await waitFor(() => expect(within(inbox).queryByText('华东团队')).toBeNull());
    fireEvent.click(within(inbox).getByRole('button', { name: '拒绝' }));
    await waitFor(() => expect(state.decline).toHaveBeenCalledWith(2));
    expect(await within(inbox).findByText('没有待处理的邀请')).toBeTruthy();
  });

  it('an opened invitation link asks to join, redeems its token once, and leaves the address bar', async () => {
    state.items = [];
    window.history.replaceState(null, '', '/tasks?invitation=tok-123&x=1');
    state.redeem.mockResolvedValue({ id: 12, name: '华北团队', slug: 'ws-n', role: 'operator' });
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <InvitationsInbox />
        </QueryClientProvider>
      </AppConfig>,
    );
    expect(window.location.search).toBe('?x=1');
    expect(await screen.findByText('你收到了一个工作空间邀请链接。接受后将以邀请中的角色加入该工作空间。')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /^接\s?受$/ }));
    await waitFor(() => expect(state.redeem).toHaveBeenCalledWith('tok-123'));
    expect(state.redeem).toHaveBeenCalledTimes(1);
  });
});
