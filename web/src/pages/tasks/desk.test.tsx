import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import type { ImageCandidate } from '../../api/types';
import { ImageTile, type ImageActions } from './ImageTile';
import { SubmitReview } from './SubmitReview';
import { checkUpload, cropWindow, framingFields, isThreeByFour, UPLOAD_MAX_BYTES } from './uploadChecks';
import { editWarning, failedSlots, slotsOf } from './versions';
import { openProblems } from './LivePanel';

// jsdom draws no images: the natural size is what the test says.
const size = vi.hoisted(() => ({ width: 1600, height: 900 }));
vi.mock('./uploadChecks', async (original) => ({
  ...(await original<typeof import('./uploadChecks')>()),
  readImageSize: async () => ({ ...size, url: 'blob:local' }),
}));

function image(id: number, seq: number, over: Partial<ImageCandidate> = {}): ImageCandidate {
  return { candidate_id: id, strategy: 'A', url: `data:image/png;base64,iVBORw0KGgo=`, role: 'pain', seq, is_selected: false, is_regen: false, ai_visual_score: null, ai_visual_note: null, source: 'ai', status: 'done', error_kind: null, error_key: null, error_params: null, instruction: null, caption: null, ...over };
}

function actions(over: Partial<ImageActions> = {}): ImageActions & { [K in keyof ImageActions]: ImageActions[K] } {
  return {
    canSelect: true,
    canRegenerate: true,
    canUpload: true,
    canRetry: true,
    canEditCaption: false,
    onSelect: vi.fn(),
    onCaption: vi.fn(),
    onRegenerate: vi.fn(),
    onUpload: vi.fn(async () => ({ candidate_id: 99, is_selected: true })),
    onRetry: vi.fn(),
    ...over,
  };
}

const tile = (images: ImageCandidate[], a: ImageActions) =>
  render(
    <AppConfig>
      <ImageTile slot={slotsOf(images)[0]!} actions={a} demo={false} />
    </AppConfig>,
  );

const file = (name: string, type: string, bytes: number) => {
  const f = new File(['x'], name, { type });
  Object.defineProperty(f, 'size', { value: bytes });
  return f;
};
const choose = (f: File) => fireEvent.change(document.querySelector('input[type="file"]')!, { target: { files: [f] } });

describe('upload checks', () => {
  it('takes JPEG, PNG and WebP up to 10 MB, by type and name', () => {
    expect(checkUpload({ name: 'a.png', type: 'image/png', size: 1000 })).toBeUndefined();
    expect(checkUpload({ name: 'a.JPG', type: 'image/jpeg', size: UPLOAD_MAX_BYTES })).toBeUndefined();
    expect(checkUpload({ name: 'a.webp', type: 'image/webp', size: 1 })).toBeUndefined();
    expect(checkUpload({ name: 'a.png', type: 'image/png', size: 12 * 1024 * 1024 })).toBe('size');
    expect(checkUpload({ name: 'a.gif', type: 'image/gif', size: 10 })).toBe('type');
    expect(checkUpload({ name: 'a.gif', type: 'image/png', size: 10 })).toBe('type');
    expect(checkUpload({ name: 'a.pdf', type: '', size: 10 })).toBe('type');
    expect(checkUpload({ name: 'a.png', type: 'image/png', size: 0 })).toBe('empty');
  });

  it('frames a picture of another ratio: a 3:4 window at the focus, or padded on a colour', () => {
    expect(isThreeByFour(1080, 1440)).toBe(true);
    expect(isThreeByFour(1600, 900)).toBe(false);
    const w = cropWindow(1600, 900, 1);
    expect(w.axis).toBe('x');
    expect(w.left + w.width).toBeCloseTo(1);
    expect(cropWindow(900, 3000, 0).top).toBe(0);
    expect(framingFields({ fit: 'crop', focus: 0.256 })).toEqual({ fit: 'crop', focus: '0.26' });
    expect(framingFields({ fit: 'pad', background: '#ABCDEF' })).toEqual({ fit: 'pad', background: '#abcdef' });
    expect(framingFields(undefined)).toEqual({});
  });
});

describe('image slot tile', () => {
  it('refuses a 12 MB file in Chinese before sending anything', async () => {
    const a = actions();
    tile([image(1, 2)], a);
    choose(file('big.png', 'image/png', 12 * 1024 * 1024));
    expect((await screen.findByTestId('upload-refusal')).textContent).toBe('图片超过 10 MB，未上传');
    choose(file('anim.gif', 'image/gif', 100));
    await waitFor(() => expect(screen.getByTestId('upload-refusal').textContent).toBe('只能上传 JPEG、PNG 或 WebP 图片，未上传'));
    expect(a.onUpload).not.toHaveBeenCalled();
  });

  it('asks how to frame a landscape picture: crop at the slider, or keep it whole on a colour', async () => {
    const a = actions();
    tile([image(1, 2)], a);
    choose(file('wide.png', 'image/png', 2000));
    const dialog = await screen.findByTestId('framing-dialog');
    expect(within(dialog).getByTestId('framing-result')).toBeTruthy();
    const slider = within(dialog).getByRole('slider');
    fireEvent.keyDown(slider, { key: 'End', keyCode: 35, which: 35 });
    fireEvent.click(screen.getByRole('button', { name: '上传' }));
    await waitFor(() => expect(a.onUpload).toHaveBeenCalledWith(expect.objectContaining({ candidate_id: 1 }), expect.any(File), { fit: 'crop', focus: 1 }));

    choose(file('wide.png', 'image/png', 2000));
    await screen.findByTestId('framing-dialog');
    fireEvent.click(screen.getByText('完整保留'));
    fireEvent.change(screen.getByTestId('framing-background'), { target: { value: '#000000' } });
    fireEvent.click(screen.getByRole('button', { name: '上传' }));
    await waitFor(() => expect(a.onUpload).toHaveBeenLastCalledWith(expect.anything(), expect.any(File), { fit: 'pad', background: '#000000' }));
  });

  it('uploads a 3:4 picture at once, without asking', async () => {
    size.width = 1080;
    size.height = 1440;
    const a = actions();
    tile([image(1, 2)], a);
    choose(file('tall.jpg', 'image/jpeg', 2000));
    await waitFor(() => expect(a.onUpload).toHaveBeenCalledWith(expect.anything(), expect.any(File), undefined));
    expect(screen.queryByTestId('framing-dialog')).toBeNull();
    size.width = 1600;
    size.height = 900;
  });

  it('is one tile for a slot with its versions, the selected one marked; picking a version moves the selection to it', () => {
    const a = actions();
    tile([image(1, 2, { is_selected: true }), image(2, 2, { is_regen: true }), image(3, 2, { source: 'upload' })], a);
    expect(screen.getAllByTestId('image-candidate')).toHaveLength(1);
    const options = screen.getAllByTestId('version-option');
    expect(options.map((o) => o.textContent)).toEqual(['原图', '重新生成 1', '上传 1']);
    // The selected version shows and is marked.
    expect(screen.getByTestId('image-candidate').getAttribute('data-version')).toBe('original');
    expect(within(options[0]!).getByLabelText('选用的版本')).toBeTruthy();
    fireEvent.click(options[1]!);
    expect(screen.getByTestId('image-candidate').getAttribute('data-version')).toBe('regen');
    expect(screen.getByTestId('version-badge').textContent).toBe('重新生成 1');
    expect(a.onSelect).toHaveBeenCalledWith(expect.objectContaining({ candidate_id: 2 }), true);
    expect(a.onSelect).toHaveBeenCalledWith(expect.objectContaining({ candidate_id: 1 }), false);
  });

  it('only views a version where the slot ships none (nothing selected: the package takes the newest)', () => {
    const a = actions();
    tile([image(1, 2), image(2, 2, { is_regen: true })], a);
    expect(screen.getByTestId('image-candidate').getAttribute('data-candidate-id')).toBe('2');
    fireEvent.click(screen.getAllByTestId('version-option')[0]!);
    expect(screen.getByTestId('image-candidate').getAttribute('data-candidate-id')).toBe('1');
    expect(a.onSelect).not.toHaveBeenCalled();
  });

  it('retries only its own failed image', () => {
    const a = actions();
    tile([image(7, 3, { status: 'failed', url: null, error_kind: 'timeout' })], a);
    fireEvent.click(screen.getByRole('button', { name: /重试/ }));
    expect(a.onRetry).toHaveBeenCalledWith([7]);
  });
});

describe('open problems', () => {
  it('drop an image failure once its slot has a newer version that did not fail', () => {
    const errors = [
      { message: '', kind: 'timeout', key: 'failure.image', params: { set: 'A', seq: 2, role: 'pain' } },
      { message: '', kind: null, key: 'failure.partly', params: { images_failed: 1, images_total: 6 } },
      { message: '', kind: null, key: 'failure.text_set', params: { set: 'B' } },
    ];
    const failed = [image(1, 2, { status: 'failed', url: null })];
    expect(failedSlots(failed)).toHaveLength(1);
    expect(openProblems(errors, failed)).toHaveLength(3);
    // Retried in place (same candidate, now done) or regenerated (a newer one): solved.
    expect(openProblems(errors, [image(1, 2)]).map((e) => e.key)).toEqual(['failure.text_set']);
    expect(openProblems(errors, [...failed, image(5, 2, { is_regen: true })]).map((e) => e.key)).toEqual(['failure.text_set']);
  });
});

describe('submitting for review', () => {
  const render2 = (score: number, onSubmit = vi.fn(async () => ({}))) => {
    render(
      <AppConfig>
        <SubmitReview selected={[{ strategy: 'A', score: { total: score } }]} disabled={false} busy={false} preview={null} onSubmit={onSubmit} />
      </AppConfig>,
    );
    return onSubmit;
  };

  it('submits at once at or above the pass line', () => {
    const onSubmit = render2(80);
    fireEvent.click(screen.getByTestId('submit-review'));
    expect(onSubmit).toHaveBeenCalledWith(undefined);
    expect(screen.queryByTestId('submit-note')).toBeNull();
  });

  it('below the pass line asks for a required note and sends it', async () => {
    const onSubmit = render2(62);
    fireEvent.click(screen.getByTestId('submit-review'));
    const note = await screen.findByTestId('submit-note');
    expect(note.textContent).toContain('A 组 62 分');
    fireEvent.click(screen.getByRole('button', { name: /确认提交审核/ }));
    expect((await screen.findByText('请填写说明再提交')).getAttribute('role')).toBe('alert');
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('给审核人的说明（必填）'), { target: { value: '  开头已人工改写  ' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: /确认提交审核/ }));
    });
    expect(onSubmit).toHaveBeenCalledWith('开头已人工改写');
  });
});

describe('after an edit is saved', () => {
  const hit = (word: string, level: 'soft_warn' | 'hard_block') => ({ field: 'content' as const, tag_index: null, start: 0, end: word.length, word, level });
  it('names the soft-warn words it still holds, and the hard-block ones as an error', () => {
    expect(editWarning([])).toBeUndefined();
    expect(editWarning([hit('秒杀', 'soft_warn'), hit('秒杀', 'soft_warn'), hit('爆款', 'soft_warn')])).toEqual({ level: 'warning', key: 'desk.softWarn', words: '秒杀、爆款' });
    expect(editWarning([hit('秒杀', 'soft_warn'), hit('第一', 'hard_block')])).toEqual({ level: 'error', key: 'desk.hardBlock', words: '第一' });
  });
});
