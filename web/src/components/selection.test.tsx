import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../i18n';
import { AppConfig } from '../app/AppConfig';
import { ApiError } from '../api/client';
import type { ImageCandidate, Strategy, TextCandidate } from '../api/types';
import { LiveStore } from '../hooks/taskStream';
import { CandidateBoard } from '../pages/tasks/CandidateBoard';
import { demoOrigin, NOT_DEMO } from './demo';
import { applyImageSelection, applyTextSelection, canSubmitForReview, groupBySet } from './selection';

function text(id: number, strategy: Strategy | null, over: Partial<TextCandidate> = {}): TextCandidate {
  return {
    candidate_id: id,
    angle_label: `angle ${id}`,
    strategy,
    title: `title ${id}`,
    content: `content ${id}`,
    tags: ['tag'],
    cover_title: '',
    image_brief: '',
    source: 'ai',
    score: { title: 20, emotion: 20, selling: 20, keyword: 15, compliance: 5, total: 80 },
    banned_word_status: 'pass',
    is_selected: false,
    verdict: '',
    summary: '',
    edited: false,
    banned_hits: [],
    ...over,
  };
}

function image(id: number, strategy: Strategy, seq: number, selected = false, over: Partial<ImageCandidate> = {}): ImageCandidate {
  return { candidate_id: id, strategy, url: `data:image/png;base64,iVBORw0KGgo=`, role: 'main', seq, is_selected: selected, is_regen: false, ai_visual_score: null, ai_visual_note: null, source: 'ai', status: 'done', error_kind: null, error_key: null, error_params: null, instruction: null, caption: null, ...over };
}

const selectedIds = (texts: TextCandidate[]) => texts.filter((t) => t.is_selected).map((t) => t.candidate_id);

describe('selection rules per strategy set', () => {
  const texts = [text(1, 'A', { is_selected: true }), text(2, 'A'), text(3, 'B', { is_selected: true }), text(4, 'B'), text(5, 'C')];

  it('selecting a text replaces the selected text of its own set only', () => {
    const next = applyTextSelection(texts, 4, true);
    expect(selectedIds(next)).toEqual([1, 4]);
    expect(selectedIds(applyTextSelection(next, 5, true))).toEqual([1, 4, 5]);
  });

  it('deselecting leaves the set without a selected text and touches no other set', () => {
    expect(selectedIds(applyTextSelection(texts, 1, false))).toEqual([3]);
  });

  it('a hard-blocked text cannot be selected (nothing changes)', () => {
    const withBlocked = [...texts, text(6, 'C', { banned_word_status: 'hard_block' })];
    expect(applyTextSelection(withBlocked, 6, true)).toBe(withBlocked);
  });

  it('texts without a strategy form their own set', () => {
    const legacy = [text(7, null, { is_selected: true }), text(8, null), text(9, 'A', { is_selected: true })];
    expect(selectedIds(applyTextSelection(legacy, 8, true))).toEqual([8, 9]);
    expect([...groupBySet(legacy).keys()]).toEqual(['none', 'A']);
  });

  it('any number of images of a set may be selected', () => {
    const images = [image(11, 'A', 1, true), image(12, 'A', 2), image(13, 'B', 1)];
    const next = applyImageSelection(applyImageSelection(images, 12, true), 13, true);
    expect(next.filter((i) => i.is_selected).map((i) => i.candidate_id)).toEqual([11, 12, 13]);
    expect(applyImageSelection(next, 11, false).filter((i) => i.is_selected).map((i) => i.candidate_id)).toEqual([12, 13]);
  });

  it('submitting for review needs at least one selected text', () => {
    expect(canSubmitForReview(texts)).toBe(true);
    expect(canSubmitForReview(texts.map((t) => ({ ...t, is_selected: false })))).toBe(false);
  });
});

describe('CandidateBoard', () => {
  const board = (canSelect: boolean, texts: TextCandidate[], images: ImageCandidate[] = [], demo = NOT_DEMO) => {
    const actions = {
      demo,
      canSelect,
      canEdit: canSelect,
      canRegenerate: canSelect,
      canUpload: canSelect,
      canRetry: canSelect,
      canEditCaption: canSelect,
      onSelectText: vi.fn(),
      onSelect: vi.fn(),
      onEdit: vi.fn(),
      onRegenerate: vi.fn(),
      onUpload: vi.fn(),
      onRetry: vi.fn(),
      onCaption: vi.fn(),
    };
    render(
      <AppConfig>
        <CandidateBoard texts={texts} images={images} store={new LiveStore()} actions={actions} />
      </AppConfig>,
    );
    return actions;
  };

  it('shows every text of each set, the chosen one first, and selects or deselects a text in one click where it is shown', () => {
    const actions = board(true, [text(1, 'A', { is_selected: true }), text(2, 'A'), text(3, 'B')]);
    const setA = screen.getByTestId('set-A');
    expect(within(setA).getByTestId('chosen-text').getAttribute('data-candidate-id')).toBe('1');
    expect(within(setA).getAllByTestId('text-candidate')).toHaveLength(1);
    expect(within(screen.getByTestId('set-B')).getByTestId('chosen-text').getAttribute('data-candidate-id')).toBe('3');
    expect(screen.queryByTestId('set-C')).toBeNull();
    const second = within(setA).getByTestId('text-candidate');
    fireEvent.click(within(second).getByRole('button', { name: '选用' }));
    expect(actions.onSelectText).toHaveBeenCalledWith(expect.objectContaining({ candidate_id: 2 }), true);
    const first = within(setA).getByTestId('chosen-text');
    fireEvent.click(within(first).getByRole('button', { name: '取消选用' }));
    expect(actions.onSelectText).toHaveBeenLastCalledWith(expect.objectContaining({ candidate_id: 1 }), false);
  });

  it('disables selecting a hard-blocked text and highlights the banned words the server found', () => {
    const found = { field: 'content' as const, tag_index: null, start: 2, end: 4, word: '第一', level: 'hard_block' as const };
    board(true, [text(1, 'A', { banned_word_status: 'hard_block', content: '全网第一好用', banned_hits: [found] })]);
    const card = screen.getByTestId('chosen-text');
    expect((within(card).getByRole('button', { name: '选用' }) as HTMLButtonElement).disabled).toBe(true);
    const mark = card.querySelector('mark[data-level="hard_block"]');
    expect(mark?.textContent).toBe('第一');
  });

  it('toggles images independently', () => {
    const actions = board(true, [text(1, 'A')], [image(11, 'A', 1, true), image(12, 'A', 2)]);
    const boxes = within(screen.getByTestId('set-A')).getAllByRole('checkbox') as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([true, false]);
    fireEvent.click(boxes[1]!);
    expect(actions.onSelect).toHaveBeenCalledWith(expect.objectContaining({ candidate_id: 12 }), true);
  });

  it('edits the caption of a slide, never of a cover, and words a refusal from its reason', async () => {
    const actions = board(true, [text(1, 'A')], [image(11, 'A', 1, false, { role: 'hook', caption: '封面标题' }), image(12, 'A', 2, false, { role: 'pain', caption: '睡前抹一层' })]);
    const [cover, slide] = within(screen.getByTestId('set-A')).getAllByTestId('image-candidate');
    expect(within(cover!).queryByText('图片文字')).toBeNull();
    fireEvent.click(within(slide!).getByText('图片文字'));
    const field = await waitFor(() => document.querySelector<HTMLInputElement>('input[aria-label="图片文字"]')!);
    expect(field.value).toBe('睡前抹一层');
    const save = screen.getByText('保存并重新印字').closest('button')!;
    // Counted in graphemes against the server's limit: 13 is over it.
    fireEvent.change(field, { target: { value: '一二三四五六七八九十一二三' } });
    expect(save.disabled).toBe(true);
    actions.onCaption.mockRejectedValueOnce(new ApiError(422, 42202, 'banned', 'image.caption_hard_blocked', { words: ['医用级'] }));
    fireEvent.change(field, { target: { value: ' 医用级修护 ' } });
    fireEvent.click(save);
    expect(actions.onCaption).toHaveBeenLastCalledWith(expect.objectContaining({ candidate_id: 12 }), '医用级修护');
    await waitFor(() => expect(document.querySelector('[role="alert"]')?.textContent).toBe('图片文字含有禁止使用的违禁词：医用级'));
    actions.onCaption.mockResolvedValueOnce({});
    fireEvent.change(field, { target: { value: '' } });
    fireEvent.click(save);
    expect(actions.onCaption).toHaveBeenLastCalledWith(expect.objectContaining({ candidate_id: 12 }), '');
    await waitFor(() => expect(document.querySelector('[role="alert"]')).toBeNull());
  }, 60_000);

  it('allows no selection while the task is not selectable', () => {
    board(false, [text(1, 'A')], [image(11, 'A', 1)]);
    expect((screen.getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: '选用' }) as HTMLButtonElement).disabled).toBe(true);
    // Nothing of the editing loop is offered either.
    expect(screen.queryByRole('button', { name: /重新生成/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /替换/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /编辑/ })).toBeNull();
  });

  it('marks the offline demo provider’s texts and images as demo output, never an imported text or an uploaded image', () => {
    const demo = demoOrigin({
      text: { key_id: 1, provider: 'local', name: '本地离线', model: 'local' },
      vision: null,
      image: { key_id: 1, provider: 'local', name: '本地离线', model: 'local' },
    });
    board(true, [text(1, 'A'), text(2, 'A', { source: 'import', score: { title: 0, emotion: 0, selling: 0, keyword: 0, compliance: 0, total: 0 } })], [image(11, 'A', 1), image(12, 'A', 2, false, { source: 'upload' })], demo);
    const set = screen.getByTestId('set-A');
    // The chosen (best) text is marked; the imported one in the list is not.
    expect(within(within(set).getByTestId('chosen-text')).getAllByTestId('demo-tag')).toHaveLength(1);
    const cards = within(set).getAllByTestId('text-candidate');
    expect(cards.map((c) => within(c).queryAllByTestId('demo-tag').length)).toEqual([0]);
    const tiles = within(set).getAllByTestId('image-candidate');
    expect(tiles.map((c) => within(c).queryAllByTestId('demo-mark').length)).toEqual([1, 0]);
  });

  it('marks nothing when a real provider wrote the task', () => {
    const real = demoOrigin({ text: { key_id: 2, provider: 'deepseek', name: 'DeepSeek', model: 'deepseek-chat' }, vision: null, image: null });
    board(true, [text(1, 'A')], [image(11, 'A', 1)], real);
    expect(screen.queryAllByTestId('demo-tag')).toHaveLength(0);
    expect(screen.queryAllByTestId('demo-mark')).toHaveLength(0);
  });
});
