import { Alert, Badge, Card, Progress, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useMemo } from 'react';
import type { ImageCandidate, Progress as StageProgress, Stage, TaskStatus } from '../../api/types';
import { failedSlots } from './versions';
import { wordFailure } from '../../api/errorText';
import { isGenerating, useLive, type LiveState, type LiveStore } from '../../hooks/taskStream';

const NO_IMAGES: readonly ImageCandidate[] = [];
const STAGES: Stage[] = ['text', 'score', 'image', 'package'];
const CONNECTION_BADGE = { idle: 'default', connecting: 'processing', open: 'success', reconnecting: 'warning', closed: 'default' } as const;

/**
 * The image counters once generation is over, from the slots as they are now: a slot counts as
 * done, failed or pending by its newest version, so a settled retry or regeneration moves it.
 */
export function imageSlotProgress(images: readonly ImageCandidate[]): StageProgress | undefined {
  const newest = new Map<string, ImageCandidate>();
  for (const i of images) {
    const k = `${i.strategy}:${i.seq}`;
    const cur = newest.get(k);
    if (!cur || i.candidate_id > cur.candidate_id) newest.set(k, i);
  }
  if (newest.size === 0) return undefined;
  const slots = [...newest.values()];
  return { stage: 'image', done: slots.filter((i) => i.status === 'done').length, failed: slots.filter((i) => i.status === 'failed').length, total: slots.length };
}

function StageBar({ store, stage, fallback, settled }: { store: LiveStore; stage: Stage; fallback: StageProgress | null; settled?: StageProgress }) {
  const { t } = useTranslation();
  const live = useLive(store, (s) => s.progress[stage]);
  const progress = settled ?? live ?? (fallback?.stage === stage ? fallback : undefined);
  if (!progress) return null;
  // Failed images settle the bar without counting as done: the green part is what succeeded.
  const failed = progress.failed ?? 0;
  const share = (n: number) => (progress.total > 0 ? Math.round((n / progress.total) * 100) : 0);
  const label = failed > 0 ? t('live.progressFailed', { done: progress.done, failed, total: progress.total }) : `${progress.done}/${progress.total}`;
  return (
    <div data-testid={`stage-${stage}`} style={{ display: 'grid', gridTemplateColumns: '6em 1fr', alignItems: 'center', gap: 8 }}>
      <Typography.Text>{t(`stage.${stage}`)}</Typography.Text>
      <Progress
        percent={share(progress.done + failed)}
        success={{ percent: share(progress.done) }}
        status={failed > 0 ? 'exception' : undefined}
        format={() => label}
        aria-label={`${t(`stage.${stage}`)} ${label}`}
      />
    </div>
  );
}

/** Texts as they stream in, before they become candidates. Each draft re-renders alone. */
function Draft({ store, draftKey }: { store: LiveStore; draftKey: string }) {
  const text = useLive(store, (s) => s.drafts[draftKey]);
  const { t } = useTranslation();
  if (text === undefined) return null;
  return (
    <Card size="small" title={t('live.drafting', { set: draftKey.split(':')[0] })} style={{ width: 300 }}>
      <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: 0 }} data-testid="draft-text">
        {text}
      </Typography.Paragraph>
    </Card>
  );
}

function Drafts({ store }: { store: LiveStore }) {
  // Re-renders when the set of drafts changes (their keys), not on each token.
  const keys = useLive(store, (s) => Object.keys(s.drafts).join('|'));
  if (!keys) return null;
  return (
    <Space wrap align="start" style={{ marginTop: 12 }}>
      {keys.split('|').map((k) => (
        <Draft key={k} store={store} draftKey={k} />
      ))}
    </Space>
  );
}

/**
 * Problems reported during generation that are still open: an image's failure goes once its slot
 * has a newer version that did not fail (a retry or regeneration settled), and the summary of a
 * partly failed generation goes once none of its images is still failed (and no text set failed).
 */
export function openProblems(errors: LiveState['errors'], images: readonly ImageCandidate[]): LiveState['errors'] {
  const open = new Set(failedSlots(images).map((i) => `${i.strategy}:${i.seq}`));
  return errors.filter((e) => {
    if (e.key === 'failure.image' && e.params && 'set' in e.params && 'seq' in e.params) return open.has(`${String(e.params.set)}:${String(e.params.seq)}`);
    if (e.key === 'failure.partly' && e.params && !e.params.texts_failed) return open.size > 0;
    return true;
  });
}

/** Problems still open: one alert, each distinct problem worded once, counted. */
function StreamErrors({ store, images }: { store: LiveStore; images: readonly ImageCandidate[] }) {
  const { t } = useTranslation();
  const all = useLive(store, (s) => s.errors);
  const errors = useMemo(() => openProblems(all, images), [all, images]);
  if (errors.length === 0) return null;
  const lines = [...new Set(errors.map((e) => wordFailure(t, { key: e.key, params: e.params, kind: e.kind })))];
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="stream-errors"
      style={{ marginTop: 8 }}
      title={lines.length === 1 ? lines[0] : t('failure.more', { count: lines.length })}
      description={
        lines.length > 1 ? (
          <ul style={{ margin: 0, paddingInlineStart: 20 }}>
            {lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        ) : undefined
      }
    />
  );
}

/** While generating: the stream's connection; after it: how the generation ended, not the connection. */
function StateBadge({ store, generating }: { store: LiveStore; generating: boolean }) {
  const { t } = useTranslation();
  const connection = useLive(store, (s) => s.connection);
  const failed = useLive(store, (s) => s.status === 'failed');
  if (generating) return <Badge status={CONNECTION_BADGE[connection]} text={t(`live.connection.${connection}`)} />;
  return <Badge status={failed ? 'error' : 'success'} text={t(failed ? 'live.failed' : 'live.finished')} data-testid="live-finished" />;
}

/** What the panel says while generating: queued until the first stage reports, then generating. */
function Generating({ store, status }: { store: LiveStore; status: TaskStatus }) {
  const { t } = useTranslation();
  const queued = useLive(store, (s) => (s.status ?? status) === 'pending' && Object.keys(s.progress).length === 0);
  return (
    <Typography.Text type="secondary" data-testid={queued ? 'live-queued' : 'live-generating'}>
      {t(queued ? 'live.queued' : 'live.generating')}
    </Typography.Text>
  );
}

/** `status`: the task's, as last fetched (the stream may be ahead of it); `images`: as now known (fetched and streamed). */
export function LivePanel({ store, fallback, status, images = NO_IMAGES }: { store: LiveStore; fallback: StageProgress | null; status: TaskStatus; images?: readonly ImageCandidate[] }) {
  const { t } = useTranslation();
  const generating = isGenerating(status);
  const settledImages = useMemo(() => imageSlotProgress(images), [images]);
  return (
    <Card
      size="small"
      title={t('live.title')}
      extra={<StateBadge store={store} generating={generating} />}
      style={{ marginBottom: 16 }}
      data-testid="live-panel"
    >
      {generating && <Generating store={store} status={status} />}
      {STAGES.map((s) => (
        <StageBar key={s} store={store} stage={s} fallback={fallback} settled={s === 'image' && !generating ? settledImages : undefined} />
      ))}
      <Drafts store={store} />
      <StreamErrors store={store} images={images} />
    </Card>
  );
}
