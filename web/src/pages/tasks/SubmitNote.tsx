import { Alert, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { PASS_LINE } from '../../api/constants';

export const NOTE_MAX = 300;

/**
 * Submitting a text below the pass line asks why: a note for the reviewer, required, sent with
 * the submission (`note`, ≤ 300 characters).
 */
export function SubmitNote({
  below,
  value,
  missing,
  onChange,
}: {
  below: { set: string; score: number }[];
  value: string;
  missing: boolean;
  onChange: (value: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <div data-testid="submit-note" style={{ marginTop: 16 }}>
      <Alert
        type="warning"
        showIcon
        style={{ marginBottom: 8 }}
        title={t('desk.note.below', { line: PASS_LINE, sets: below.map((b) => t('desk.note.setScore', b)).join('、') })}
      />
      <label htmlFor="submit-note-text" style={{ display: 'block', marginBottom: 4 }}>
        <Typography.Text strong>{t('desk.note.label')}</Typography.Text>
      </label>
      <Input.TextArea
        id="submit-note-text"
        aria-required
        aria-invalid={missing}
        status={missing ? 'error' : undefined}
        placeholder={t('desk.note.hint')}
        maxLength={NOTE_MAX}
        showCount
        autoSize={{ minRows: 3, maxRows: 6 }}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      {missing && (
        <Typography.Text type="danger" role="alert" style={{ fontSize: 12 }}>
          {t('desk.note.required')}
        </Typography.Text>
      )}
    </div>
  );
}
