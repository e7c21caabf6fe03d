import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import { ImportMetricsButton, importFileProblem, MAX_IMPORT_BYTES } from './ImportMetrics';

const importFile = vi.hoisted(() => vi.fn());
vi.mock('../../api/endpoints', () => ({ api: { metrics: { importFile } } }));

function openDialog() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <ImportMetricsButton />
      </QueryClientProvider>
    </AppConfig>,
  );
  fireEvent.click(screen.getByRole('button', { name: /导入创作中心数据/ }));
  return screen.findByRole('dialog');
}

async function choose(dialog: HTMLElement, file: File) {
  const input = dialog.querySelector('input[type=file]') as HTMLInputElement;
  fireEvent.change(input, { target: { files: [file] } });
}

describe('importing the creator centre’s note data', () => {
  beforeEach(() => importFile.mockReset());

  it('takes .csv and .xlsx up to 10 MB', () => {
    expect(importFileProblem({ name: '笔记数据.CSV', size: 10 })).toBeNull();
    expect(importFileProblem({ name: 'note.xlsx', size: MAX_IMPORT_BYTES })).toBeNull();
    expect(importFileProblem({ name: 'note.xls', size: 10 })).toBe('publishing.import.badType');
    expect(importFileProblem({ name: 'note.csv', size: MAX_IMPORT_BYTES + 1 })).toBe('publishing.import.tooLarge');
  });

  it('refuses another type before sending', async () => {
    const dialog = await openDialog();
    await choose(dialog, new File(['x'], 'notes.pdf', { type: 'application/pdf' }));
    expect((await within(dialog).findByTestId('import-problem')).textContent).toBe('只能导入 .csv 或 .xlsx 文件');
    expect(importFile).not.toHaveBeenCalled();
  });

  it('shows what matched and every unmatched row with its reason in Chinese', async () => {
    importFile.mockResolvedValue({
      rows: 6,
      matched: 2,
      created: 1,
      unmatched: [
        { row: 3, reason: 'not_found', title: '冬天的保温杯' },
        { row: 4, reason: 'ambiguous', title: '同名笔记' },
        { row: 5, reason: 'no_note', title: null },
        { row: 6, reason: 'invalid_number', title: '数字不对' },
        { row: 7, reason: 'no_counts', title: '没有数' },
      ],
    });
    const dialog = await openDialog();
    const file = new File(['笔记标题,观看量\n'], '笔记数据.csv', { type: 'text/csv' });
    await choose(dialog, file);
    await waitFor(() => expect(importFile).toHaveBeenCalledTimes(1));
    expect((importFile.mock.calls[0]![0] as File).name).toBe('笔记数据.csv');
    const result = await within(dialog).findByTestId('import-result');
    expect(result.textContent).toContain('读取 6 行：匹配 2 行，新增 1 条数据快照');
    expect(result.textContent).toContain('未匹配的行（5）');
    // jsdom is phone-sized: each unmatched row is a card with its row number, title and reason.
    const cards = within(result).getByTestId('import-unmatched');
    for (const [row, title, reason] of [
      ['3', '冬天的保温杯', '没有找到已发布的对应笔记（链接、笔记ID或标题+发布日期都对不上）'],
      ['4', '同名笔记', '有多条已发布的笔记与之对应（标题和发布日期相同），请改用笔记链接'],
      ['5', '—', '这一行没有笔记链接、笔记ID或标题'],
      ['6', '数字不对', '有数据不是整数（例如写成了文字）'],
      ['7', '没有数', '这一行没有任何数据'],
    ] as const) {
      const card = within(cards).getByText(reason).closest('.ant-card')!;
      expect(card.textContent).toContain(row);
      expect(card.textContent).toContain(title);
    }
  });
});
