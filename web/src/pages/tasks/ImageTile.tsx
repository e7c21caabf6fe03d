import { CheckCircleFilled, DownloadOutlined, EditOutlined, LoadingOutlined, RedoOutlined, SyncOutlined, UploadOutlined, WarningOutlined } from '@ant-design/icons';
import { Button, Checkbox, Input, Popover, Space, Tooltip, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { NOTE_LIMITS } from '../../api/constants';
import type { ImageCandidate } from '../../api/types';
import { graphemeCount } from '../../components/graphemes';
import { Thumb } from '../../components/Thumb';
import { Counter } from './EditTextModal';
import { FramingDialog } from './FramingDialog';
import { checkUpload, isThreeByFour, readImageSize, UPLOAD_MAX_BYTES, type Framing, type UploadRefusal } from './uploadChecks';
import type { Slot, VersionKind } from './versions';

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
  /** `framing`: how a picture that is not 3:4 is made one, as the operator chose. */
  onUpload: (c: ImageCandidate, file: File, framing?: Framing) => Promise<unknown>;
  /** Retry failed images: these only (one tile's), or every failed one. */
  onRetry: (candidateIds?: number[]) => void;
}

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

/** A refusal of a file, worded where the operator acted; nothing was sent. */
function refusalText(t: (k: string, o?: Record<string, unknown>) => string, refusal: UploadRefusal | 'unreadable'): string {
  return t(`desk.upload.${refusal}`, { max: UPLOAD_MAX_BYTES / 1024 / 1024 });
}

function versionLabel(t: (k: string, o?: Record<string, unknown>) => string, v: VersionKind): string {
  return v.kind === 'original' ? t('desk.version.original') : t(`desk.version.${v.kind}`, { n: v.n });
}

/**
 * One image slot of a set as ONE tile: the version shown (the selected one, else the newest),
 * a switcher between its versions (原图, 重新生成 n, 上传), the selected one marked. Picking a
 * version moves the slot's selection to it where the slot has one; the checkbox takes it in or out.
 */
export function ImageTile({ slot, actions, demo }: { slot: Slot; actions: ImageActions; demo: boolean }) {
  const { t } = useTranslation();
  const [viewId, setViewId] = useState<number>();
  const [refusal, setRefusal] = useState<string>();
  const [framing, setFraming] = useState<{ file: File; url: string; width: number; height: number; name: string }>();
  const [uploading, setUploading] = useState(false);
  const fallback = slot.selected ?? [...slot.versions].reverse().find((v) => v.c.status === 'done')?.c ?? slot.newest;
  const c = slot.versions.find((v) => v.c.candidate_id === viewId)?.c ?? fallback;
  const version = slot.versions.find((v) => v.c.candidate_id === c.candidate_id)!.version;
  const label = `${c.strategy}-${c.seq} ${t(`imageRole.${c.role}`)}`;
  const placeholder = { width: '100%', aspectRatio: '3 / 4', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', borderRadius: 6, fontSize: 13, gap: 4 } as const;

  const pick = (id: number) => {
    setViewId(id);
    const next = slot.versions.find((v) => v.c.candidate_id === id)?.c;
    // Where the slot ships a version, picking another ships that one instead.
    if (!next || !actions.canSelect || next.status !== 'done' || !slot.selected || slot.selected.candidate_id === id) return;
    actions.onSelect(next, true);
    for (const v of slot.versions) if (v.c.is_selected && v.c.candidate_id !== id) actions.onSelect(v.c, false);
  };
  const toggle = (selected: boolean) => {
    actions.onSelect(c, selected);
    if (selected) for (const v of slot.versions) if (v.c.is_selected && v.c.candidate_id !== c.candidate_id) actions.onSelect(v.c, false);
  };
  const send = (file: File, how?: Framing) => {
    setUploading(true);
    actions
      .onUpload(c, file, how)
      .then((made) => {
        setFraming(undefined);
        if (made && typeof made === 'object' && 'candidate_id' in made) setViewId((made as { candidate_id: number }).candidate_id);
      })
      .catch(() => undefined)
      .finally(() => setUploading(false));
  };
  const choose = (file: File) => {
    setRefusal(undefined);
    const refused = checkUpload(file);
    if (refused) {
      setRefusal(refusalText(t, refused));
      return;
    }
    readImageSize(file)
      .then(({ width, height, url }) => {
        if (isThreeByFour(width, height)) {
          URL.revokeObjectURL(url);
          send(file);
        } else setFraming({ file, url, width, height, name: file.name });
      })
      .catch(() => setRefusal(refusalText(t, 'unreadable')));
  };
  const closeFraming = () => {
    if (framing) URL.revokeObjectURL(framing.url);
    setFraming(undefined);
  };

  return (
    <div
      data-testid="image-candidate"
      data-slot={slot.key}
      data-status={c.status}
      data-selected={c.is_selected}
      data-seq={c.seq}
      data-candidate-id={c.candidate_id}
      data-version={version.kind}
      style={{ width: '100%', minWidth: 0 }}
    >
      <div style={{ position: 'relative' }}>
        {c.status === 'done' && c.url ? (
          <Thumb url={c.url} alt={label} width="100%" demo={demo && c.source === 'ai'} />
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
        {version.kind !== 'original' && (
          <span
            data-testid="version-badge"
            style={{ position: 'absolute', right: 4, top: 4, zIndex: 1, background: version.kind === 'regen' ? '#391085' : '#0958d9', color: '#fff', borderRadius: 4, padding: '0 6px', fontSize: 12, lineHeight: '20px' }}
          >
            {versionLabel(t, version)}
          </span>
        )}
      </div>
      {slot.versions.length > 1 && (
        <div role="group" aria-label={t('desk.version.switch', { slot: label })} data-testid="version-switch" style={{ display: 'flex', flexWrap: 'wrap', gap: 4, marginTop: 4 }}>
          {slot.versions.map((v) => {
            const current = v.c.candidate_id === c.candidate_id;
            return (
              <Button
                key={v.c.candidate_id}
                size="small"
                type={current ? 'primary' : 'default'}
                aria-pressed={current}
                data-testid="version-option"
                onClick={() => pick(v.c.candidate_id)}
                icon={v.c.is_selected ? <CheckCircleFilled aria-label={t('desk.version.selected')} /> : undefined}
                style={{ fontSize: 12, paddingInline: 6 }}
              >
                {versionLabel(t, v.version)}
              </Button>
            );
          })}
        </div>
      )}
      <Checkbox checked={c.is_selected} disabled={!actions.canSelect || c.status !== 'done'} onChange={(e) => toggle(e.target.checked)} style={{ marginTop: 4 }}>
        <span style={{ fontSize: 12 }}>{label}</span>
      </Checkbox>
      {c.instruction && (
        <Tooltip title={c.instruction}>
          <Typography.Text type="secondary" style={{ fontSize: 12, display: 'block' }} ellipsis>
            “{c.instruction}”
          </Typography.Text>
        </Tooltip>
      )}
      {refusal && (
        <Typography.Text type="danger" role="alert" data-testid="upload-refusal" style={{ fontSize: 12, display: 'block' }}>
          {refusal}
        </Typography.Text>
      )}
      <Space size={4} wrap style={{ marginTop: 4 }}>
        {c.status === 'done' && c.url && (
          <Button size="small" icon={<DownloadOutlined aria-hidden />} href={c.url} download={`${c.strategy}_${String(c.seq).padStart(2, '0')}_${c.role}.jpg`}>
            {t('editing.download')}
          </Button>
        )}
        {actions.canEditCaption && c.status === 'done' && !COVER_ROLES.has(c.role) && <CaptionPopover key={c.candidate_id} c={c} onCaption={actions.onCaption} />}
        {actions.canRegenerate && c.status !== 'pending' && <RegeneratePopover c={c} onRegenerate={actions.onRegenerate} />}
        {actions.canUpload && c.status !== 'pending' && (
          <Upload
            accept="image/jpeg,image/png,image/webp,.jpg,.jpeg,.png,.webp"
            showUploadList={false}
            beforeUpload={(file) => {
              choose(file);
              return Upload.LIST_IGNORE;
            }}
          >
            <Button size="small" loading={uploading} icon={<UploadOutlined aria-hidden />}>
              {t('editing.replace')}
            </Button>
          </Upload>
        )}
        {actions.canRetry && c.status === 'failed' && (
          <Button size="small" danger icon={<RedoOutlined aria-hidden />} onClick={() => actions.onRetry([c.candidate_id])} data-testid="retry-one">
            {t('editing.retry')}
          </Button>
        )}
      </Space>
      <FramingDialog image={framing} busy={uploading} onCancel={closeFraming} onConfirm={(how) => framing && send(framing.file, how)} />
    </div>
  );
}
