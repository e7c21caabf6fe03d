import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import type { Post, PostKit } from '../../api/types';
import KitPage from './KitPage';

const state = vi.hoisted(() => ({ kit: undefined as unknown as PostKit }));
const markPublished = vi.hoisted(() => vi.fn());
vi.mock('../../api/endpoints', () => ({
  api: { posts: { kit: async () => state.kit, markPublished } },
}));

function kit(over: Partial<PostKit> = {}): PostKit {
  return {
    post_id: 5,
    status: 'due',
    account: { id: 1, name: '小美的日常' },
    scheduled_at: '2026-11-29T02:00:00.000Z',
    note_url: null,
    title: '秋冬保湿就靠它',
    body: '第一段\n第二段',
    tags: ['保湿', '护肤'],
    hashtag_line: '#保湿 #护肤',
    images: [
      { seq: 1, role: 'hook', url: '/files/a.png', file_name: '01_hook.png', ai_generated: true },
      { seq: 2, role: 'proof', url: '/files/b.png', file_name: '02_proof.png', ai_generated: true },
    ],
    declaration: { required: true, label: '笔记含AI合成内容', steps: ['点击“高级选项”', '打开“内容声明”'] },
    ...over,
  };
}

function renderKit() {
  return render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter initialEntries={['/posts/5/kit']}>
          <Routes>
            <Route path="/posts/:id/kit" element={<KitPage />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('the posting kit', () => {
  const execCommand = vi.fn();
  beforeEach(() => {
    markPublished.mockReset();
    execCommand.mockReset();
    // Plain-HTTP intranet: no navigator.clipboard, only the copy command over a selected textarea.
    Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
  });
  afterEach(() => {
    delete (document as { execCommand?: unknown }).execCommand;
  });

  it('copies the body with its tag line without navigator.clipboard, and says so', async () => {
    state.kit = kit();
    let copied = '';
    execCommand.mockImplementation(() => {
      copied = (document.activeElement as HTMLTextAreaElement).value;
      return true;
    });
    renderKit();
    fireEvent.click(await screen.findByTestId('copy-body'));
    await screen.findByText('已复制');
    expect(execCommand).toHaveBeenCalledWith('copy');
    expect(copied).toBe('第一段\n第二段\n\n#保湿 #护肤');

    fireEvent.click(screen.getByTestId('copy-title'));
    await waitFor(() => expect(copied).toBe('秋冬保湿就靠它'));
    // Images in posting order, the cover labelled, each with its own download.
    const links = screen.getAllByRole('link', { name: '保存' });
    expect(links.map((a) => a.getAttribute('download'))).toEqual(['01_hook.png', '02_proof.png']);
    expect(screen.getByText('封面')).toBeTruthy();
    expect(screen.getByTestId('kit-declaration').querySelectorAll('li')).toHaveLength(2);
  });

  it('refuses a link that is not a Xiaohongshu note before sending, then marks the post published', async () => {
    state.kit = kit();
    markPublished.mockImplementation(async (_id: number, noteUrl: string) => {
      state.kit = { ...state.kit, status: 'published', note_url: noteUrl };
      return { id: 5, status: 'published', note_url: noteUrl } as Partial<Post>;
    });
    renderKit();
    const field = await screen.findByRole('textbox', { name: '笔记链接' });
    const mark = screen.getByRole('button', { name: '标记已发布' });

    fireEvent.change(field, { target: { value: 'https://www.example.com/explore/abc' } });
    fireEvent.click(mark);
    expect((await screen.findByTestId('note-url-error')).textContent).toBe('请粘贴小红书笔记链接（xiaohongshu.com 或 xhslink.com）');
    fireEvent.change(field, { target: { value: 'javascript://xiaohongshu.com/%0aalert(1)' } });
    fireEvent.click(mark);
    await screen.findByTestId('note-url-error');
    expect(markPublished).not.toHaveBeenCalled();

    fireEvent.change(field, { target: { value: ' https://www.xiaohongshu.com/explore/abc ' } });
    fireEvent.click(mark);
    await waitFor(() => expect(markPublished).toHaveBeenCalledWith(5, 'https://www.xiaohongshu.com/explore/abc'));
    const done = await screen.findByTestId('kit-published');
    expect(done.textContent).toContain('已发布');
    expect(done.querySelector('a')?.getAttribute('href')).toBe('https://www.xiaohongshu.com/explore/abc');
    expect(screen.queryByRole('button', { name: '标记已发布' })).toBeNull();
  });

  it('shows a published post as published with its link and no form', async () => {
    state.kit = kit({ status: 'published', note_url: 'http://xhslink.com/a/Xyz' });
    renderKit();
    const done = await screen.findByTestId('kit-published');
    expect(done.querySelector('a')?.getAttribute('href')).toBe('http://xhslink.com/a/Xyz');
    expect(screen.queryByRole('textbox', { name: '笔记链接' })).toBeNull();
  });
});
