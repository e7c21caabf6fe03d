import { DownloadOutlined, EditOutlined, LoadingOutlined, RedoOutlined, SyncOutlined, UploadOutlined, WarningOutlined } from '@ant-design/icons';
import { Button, Checkbox, Input, Popover, Space, Tag, Tooltip, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { NOTE_LIMITS } from '../../api/constants';
import type { ImageCandidate } from '../../api/types';
import { graphemeCount } from '../../components/graphemes';
import { Thumb } from '../../components/Thumb';
import { Counter } from './EditTextModal';

export interface ImageActions {
  canSelect: boolean;
  canRegenerate: boolean;
  canUpload: boolean;
  canRetry: boolean;
  /** Letter a slide with the operator's caption (contract-decisions §8); covers carry their text's cover title instead. */
  canEditCaption: boolean;
  onSelect: (c: ImageCandidate, selected: boolean) => void;
  onCaption: (c: ImageCandidate, caption: string) => Promise<unknown>;
  onRegenerate: (c: ImageCandidate, instruction: string) => Promise<unknown>;
  onUpload: (c: ImageCandidate, file: File) => Promise<unknown>;
  onRetry: () => void;
}

const TILE = 168;

function RegeneratePopover({ c, onRegenerate }: { c: ImageCandidate; onRegenerate: ImageActions['onRegenerate'] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [instruction, setInstruction] = useState('');
  const [busy, setBusy] = useState(false);
  const send = () => {
    setBusy(true);
    onRegenerate(c, instruction)
      .then(() => {
        setOpen(false);
        setInstruction('');
      })
      .finally(() => setBusy(false));
  };
  return (
    <Popover
      open={open}
      onOpenChange={setOpen}
      trigger="click"
      title={t('editing.regenerateImageTitle')}
      content={
        <Space direction="vertical" style={{ width: 240 }}>
          <Input.TextArea
            aria-label={t('editing.instruction')}
            placeholder={t('editing.instructionHint')}
            maxLength={200}
            showCount
            autoSize={{ minRows: 2, maxRows: 4 }}
            value={instruction}
            onChange={(e) => setInstruction(e.target.value)}
          />
          <Button type="primary" size="small" loading={busy} onClick={send} block>
            {t('editing.regenerateImage')}
          </Button>
        </Space>
      }
    >
      <Button size="small" icon={<SyncOutlined aria-hidden />}>
        {t('editing.regenerateImage')}
      </Button>
    </Popover>
  );
}

const COVER_ROLES: ReadonlySet<ImageCandidate['role']> = new Set(['hook', 'main']);

/**
 * The line printed on a slide, edited in place: counted in graphemes against the server's limit,
 * empty to remove it; the server's refusal (a banned word, say) shows under the field in words.
 */
export function CaptionPopover({ c, onCaption }: { c: ImageCandidate; onCaption: ImageActions['onCaption'] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [caption, setCaption] = useState(c.caption ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const over = graphemeCount(caption.trim()) > NOTE_LIMITS.caption;
  const toggle = (next: boolean) => {
    if (next) {
      setCaption(c.caption ?? '');
      setError(undefined);
    }
    setOpen(next);
  };
  const save = () => {
    setBusy(true);
    setError(undefined);
    onCaption(c, caption.trim())
      .then(() => setOpen(false))
      .catch((err: unknown) => setError(errorMessage(err)))
      .finally(() => setBusy(false));
  };
  return (
    <Popover
      open={open}
      onOpenChange={toggle}
      trigger="click"
      title={t('editing.captionTitle')}
      content={
        <Space orientation="vertical" style={{ width: 240 }}>
          <Input
            aria-label={t('editing.caption')}
            placeholder={t('editing.captionHint')}
            value={caption}
            status={over ? 'error' : undefined}
            onChange={(e) => setCaption(e.target.value)}
            onPressEnter={() => !over && save()}
          />
          <Counter text={caption.trim()} max={NOTE_LIMITS.caption} />
          {error && (
            <Typography.Text type="danger" role="alert" style={{ fontSize: 12 }}>
              {error}
            </Typography.Text>
          )}
          <Button type="primary" size="small" loading={busy} disabled={over} onClick={save} block>
            {t('editing.captionSave')}
          </Button>
        </Space>
      }
    >
      <Button size="small" icon={<EditOutlined aria-hidden />}>
        {t('editing.caption')}
      </Button>
    </Popover>
  );
}

/** One image of a set at a useful size, with what may be done to it now. */
export function ImageTile({ c, actions, demo }: { c: ImageCandidate; actions: ImageActions; demo: boolean }) {
  const { t } = useTranslation();
  const label = `${c.strategy}-${c.seq} ${t(`imageRole.${c.role}`)}`;
  const placeholder = { width: TILE, aspectRatio: '3 / 4', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', borderRadius: 6, fontSize: 13, gap: 4 } as const;
  return (
    <div data-testid="image-candidate" data-status={c.status} data-selected={c.is_selected} data-seq={c.seq} style={{ width: TILE }}>
      {c.status === 'done' && c.url ? (
        <Thumb url={c.url} alt={label} width={TILE} demo={demo && c.source === 'ai'} />
      ) : c.status === 'pending' ? (
        <div style={{ ...placeholder, background: '#fafafa', border: '1px dashed #d9d9d9' }}>
          <LoadingOutlined aria-hidden />
          {t('editing.imagePending')}
        </div>
      ) : (
        <div data-testid="image-failed" style={{ ...placeholder, background: '#fff1f0', border: '1px dashed #ff4d4f', color: '#a8071a' }}>
          <WarningOutlined aria-hidden />
          {t('editing.imageFailed')}
        </div>
      )}
      <Checkbox
        checked={c.is_selected}
        disabled={!actions.canSelect || c.status !== 'done'}
        onChange={(e) => actions.onSelect(c, e.target.checked)}
        style={{ marginTop: 4 }}
      >
        <span style={{ fontSize: 12 }}>{label}</span>
      </Checkbox>
      <Space size={4} wrap style={{ marginTop: 2 }}>
        {c.is_regen && <Tag>{t('candidate.regen')}</Tag>}
        {c.source === 'upload' && <Tag>{t('editing.uploaded')}</Tag>}
        {c.instruction && (
          <Tooltip title={c.instruction}>
            <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis>
              “{c.instruction}”
            </Typography.Text>
          </Tooltip>
        )}
      </Space>
      <Space size={4} wrap style={{ marginTop: 4 }}>
        {c.status === 'done' && c.url && (
          <Button size="small" icon={<DownloadOutlined aria-hidden />} href={c.url} download={`${c.strategy}_${String(c.seq).padStart(2, '0')}_${c.role}.jpg`}>
            {t('editing.download')}
          </Button>
        )}
        {actions.canEditCaption && c.status === 'done' && !COVER_ROLES.has(c.role) && <CaptionPopover c={c} onCaption={actions.onCaption} />}
        {actions.canRegenerate && c.status !== 'pending' && <RegeneratePopover c={c} onRegenerate={actions.onRegenerate} />}
        {actions.canUpload && c.status !== 'pending' && (
          <Upload
            accept="image/jpeg,image/png,image/webp"
            showUploadList={false}
            beforeUpload={(file) => {
              void actions.onUpload(c, file);
              return false;
            }}
          >
            <Button size="small" icon={<UploadOutlined aria-hidden />}>
              {t('editing.replace')}
            </Button>
          </Upload>
        )}
        {actions.canRetry && c.status === 'failed' && (
          <Button size="small" danger icon={<RedoOutlined aria-hidden />} onClick={actions.onRetry}>
            {t('editing.retry')}
          </Button>
        )}
      </Space>
    </div>
  );
}
