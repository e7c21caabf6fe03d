import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import WorkspacesPage from './WorkspacesPage';

const state = vi.hoisted(() => ({ invite: vi.fn() }));
vi.mock('../../api/endpoints', () => ({
  api: {
    workspaces: {
      list: async () => ({ items: [{ id: 3, name: '华东团队', slug: 'east', role: 'admin' }] }),
      invitations: async () => ({ items: [], total: 0, page: 1, page_size: 50 }),
      invite: (...args: unknown[]) => state.invite(...args),
      revokeInvitation: vi.fn(),
      addMember: vi.fn(),
      create: vi.fn(),
    },
  },
}));

const created = (over: Record<string, unknown>) => ({
  id: 9,
  workspace_id: 3,
  role: 'operator',
  status: 'pending',
  invited_by: 'admin',
  created_at: '2026-11-28T03:00:00.000Z',
  expires_at: '2026-12-05T03:00:00.000Z',
  responded_at: null,
  ...over,
});

describe('inviting into a workspace', () => {
  it('shows an email invitation’s one-time link, and none for a username', async () => {
    state.invite.mockResolvedValueOnce(created({ invitee: 'carol@b.example', invitee_kind: 'email', token: 'tok-abc' }));
    state.invite.mockResolvedValueOnce(created({ id: 10, invitee: 'dave', invitee_kind: 'username', token: null }));
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient()}>
          <WorkspacesPage />
        </QueryClientProvider>
      </AppConfig>,
    );
    // The workspace table renders slowly in jsdom on a loaded machine: wait longer than the default second.
    fireEvent.click(await screen.findByRole('button', { name: '邀请成员' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog');
    const field = within(dialog).getByLabelText('用户名或邮箱');
    fireEvent.change(field, { target: { value: 'carol@b.example' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '邀请成员' }));
    const link = await within(dialog).findByTestId('invitation-link');
    expect(state.invite).toHaveBeenCalledWith(3, { email: 'carol@b.example' }, 'operator');
    expect(link.textContent).toContain(`${window.location.origin}/?invitation=tok-abc`);

    fireEvent.change(field, { target: { value: 'dave' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '邀请成员' }));
    await waitFor(() => expect(state.invite).toHaveBeenCalledWith(3, { username: 'dave' }, 'operator'));
    await waitFor(() => expect(within(dialog).queryByTestId('invitation-link')).toBeNull());
  });
});
