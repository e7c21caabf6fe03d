import { Alert, Button, Input, Modal, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { PASS_LINE } from '../../api/constants';

export const NOTE_MAX = 300;

/**
 * 提交审核: where every selected text is at or above the pass line it submits at once; where one
 * is below, a dialog (the phone previews, `preview`) asks why, a note for the reviewer that is
 * required and sent with the submission (`note`, ≤ 300 characters).
 */
export function SubmitReview({
  selected,
  disabled,
  busy,
  preview,
  width,
  onSubmit,
}: {
  selected: { strategy: string | null; score: { total: number } }[];
  disabled: boolean;
  busy: boolean;
  preview: ReactNode;
  width?: number;
  /** Resolves when submitted (the dialog then closes). */
  onSubmit: (note?: string) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const [missing, setMissing] = useState(false);
  const below = selected.filter((c) => c.score.total < PASS_LINE);
  const send = () => {
    if (!note.trim()) {
      setMissing(true);
      return;
    }
    void onSubmit(note.trim()).then(() => {
      setOpen(false);
      setNote('');
    }, () => undefined);
  };
  return (
    <>
      <Button
        type="primary"
        data-testid="submit-review"
        disabled={disabled}
        loading={busy && !open}
        onClick={() => (below.length > 0 ? setOpen(true) : void onSubmit(undefined).catch(() => undefined))}
      >
        {t('taskPage.submit')}
      </Button>
      <Modal
        open={open}
        title={t('editing.submitPreviewTitle')}
        okText={t('editing.submitConfirm')}
        cancelText={t('form.cancel')}
        confirmLoading={busy}
        onOk={send}
        onCancel={() => setOpen(false)}
        width={width}
      >
        {preview}
        <div data-testid="submit-note" style={{ marginTop: 16 }}>
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 8 }}
            title={t('desk.note.below', { line: PASS_LINE, sets: below.map((b) => t('desk.note.setScore', { set: b.strategy ?? '', score: b.score.total })).join('、') })}
          />
          <label htmlFor="submit-note-text" style={{ display: 'block', marginBottom: 4 }}>
            <Typography.Text strong>{t('desk.note.label')}</Typography.Text>
          </label>
          <Input.TextArea
            id="submit-note-text"
            aria-required
            aria-invalid={missing && !note.trim()}
            status={missing && !note.trim() ? 'error' : undefined}
            placeholder={t('desk.note.hint')}
            maxLength={NOTE_MAX}
            showCount
            autoSize={{ minRows: 3, maxRows: 6 }}
            value={note}
            onChange={(e) => {
              setNote(e.target.value);
              setMissing(false);
            }}
          />
          {missing && !note.trim() && (
            <Typography.Text type="danger" role="alert" style={{ fontSize: 12 }}>
              {t('desk.note.required')}
            </Typography.Text>
          )}
        </div>
      </Modal>
    </>
  );
}
