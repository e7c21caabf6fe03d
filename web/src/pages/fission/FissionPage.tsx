import { CalendarOutlined, DownloadOutlined, EditOutlined, WarningOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Descriptions, Empty, Image, Progress, Row, Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { api } from '../../api/endpoints';
import { wordFailure } from '../../api/errorText';
import type { FissionNote } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { CopyButton } from '../../components/CopyButton';
import { QueryError } from '../../components/QueryError';
import { demoOrigin, DemoNotice, DemoTag, type DemoOrigin } from '../../components/demo';
import { PASS_LINE } from '../../api/constants';
import { BannedStatusTag, tone } from '../../components/tags';
import { Thumb } from '../../components/Thumb';
import { PageTitle } from '../../components/PageTitle';
import { saveFile } from '../../components/saveFile';
import { EditTextModal, type EditValues } from '../tasks/EditTextModal';
import { queryKeys, refresh } from '../../api/queryKeys';
import { useCan } from '../../app/abilities';
import { ScheduleDialog } from '../publishing/ScheduleDialog';

function NoteCard({
  fissionId,
  note,
  demo,
  onRetried,
  onEdit,
  onSchedule,
}: {
  fissionId: number;
  note: FissionNote;
  demo: DemoOrigin;
  onRetried: () => void;
  onEdit: () => void;
  /** Offered once the fission is completed (the server refuses notes of others). */
  onSchedule?: () => void;
}) {
  const { t } = useTranslation();
  const failedImages = note.images.filter((i) => i.error);
  const retry = useMutation({
    mutationFn: () => api.fission.retryImages(fissionId, note.seq),
    onSuccess: (r) => {
      const roles = (r.failed_roles ?? []).map((role) => t(`imageRole.${role}`, { defaultValue: role })).join(', ');
      notifySuccess(r.queued ? t('fission.retryQueued', { roles }) : t(/retried already/.test(r.message ?? '') ? 'fission.alreadyRetrying' : 'fission.nothingToRetry'));
      onRetried();
    },
  });
  const tags = note.note.tags;
  const downloadSet = useMutation({ mutationFn: async () => saveFile(await api.fission.downloadSet(fissionId, note.seq), `fission_${fissionId}_set_${note.seq}.zip`) });
  return (
    <Card
      size="small"
      data-testid="fission-note"
      data-status={note.status}
      title={`${t('fission.set', { seq: note.seq })} · ${note.dimension}`}
      extra={
        <Space size={4}>
          <Tag color={tone(note.passed ? 'green' : 'orange')}>
            {note.score} {note.passed ? t('score.passed') : t('score.belowLine')}
          </Tag>
          {note.needs_optimization && <Tag color={tone('orange')}>{t('fission.needsOptimization')}</Tag>}
          <BannedStatusTag status={note.banned_word_status} />
          <Tag color={tone(note.status === 'failed' ? 'red' : 'blue')}>{t(`fission.noteStatus.${note.status}`, { defaultValue: note.status })}</Tag>
        </Space>
      }
      style={{ height: '100%' }}
    >
      {/* In the body, not the crowded header, where it would push the set's name out of sight. */}
      {demo.text && <DemoTag />}
      <Typography.Title level={2} style={{ marginTop: demo.text ? 8 : 0, fontSize: 16 }}>
        {note.note.title}
      </Typography.Title>
      <Typography.Paragraph tabIndex={0} style={{ whiteSpace: 'pre-wrap', maxHeight: 200, overflow: 'auto' }}>{note.note.content}</Typography.Paragraph>
      <Typography.Paragraph type="secondary">{tags.map((tag) => `#${tag}`).join(' ')}</Typography.Paragraph>
      <Progress percent={Math.max(0, Math.min(100, note.score))} success={{ percent: 0 }} showInfo={false} size="small" aria-label={t('fission.scoreLabel', { score: note.score, line: PASS_LINE })} />
      <Image.PreviewGroup>
        <Space wrap style={{ marginTop: 8 }}>
          {note.images.map((img, i) =>
            img.retrying || (!img.error && !img.url) ? (
              <div key={i} data-testid="image-pending" style={{ width: 90, aspectRatio: '3 / 4', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#fafafa', border: '1px dashed #d9d9d9', borderRadius: 6, fontSize: 12 }}>
                {t('fission.imagePending')}
              </div>
            ) : img.error || !img.url ? (
              <Tooltip key={i} title={img.error ? wordFailure(t, { key: img.error_key, params: img.error_params, kind: img.error_kind }) : undefined}>
                <div data-testid="image-error" style={{ width: 90, aspectRatio: '3 / 4', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', background: '#fff1f0', border: '1px dashed #ff4d4f', borderRadius: 6, fontSize: 12, color: '#a8071a' }}>
                  <WarningOutlined aria-hidden />
                  {t('fission.imageFailed', { role: t(`imageRole.${img.role}`, { defaultValue: img.role }) })}
                </div>
              </Tooltip>
            ) : (
              <Thumb key={i} url={img.url} alt={`${note.seq} ${img.role}`} width={90} demo={demo.image} />
            ),
          )}
        </Space>
      </Image.PreviewGroup>
      <Space wrap style={{ marginTop: 8 }}>
        <Button size="small" disabled={failedImages.length === 0} loading={retry.isPending} onClick={() => retry.mutate()}>
          {t('fission.retry', { count: failedImages.length })}
        </Button>
        <Button size="small" icon={<EditOutlined aria-hidden />} onClick={onEdit}>
          {t('fissionList.editNote')}
        </Button>
        <Button size="small" icon={<DownloadOutlined aria-hidden />} loading={downloadSet.isPending} onClick={() => downloadSet.mutate()}>
          {t('fissionList.downloadSet')}
        </Button>
        {onSchedule && (
          <Button size="small" type="primary" icon={<CalendarOutlined aria-hidden />} onClick={onSchedule} data-testid="schedule-note">
            {t('publishing.schedule.button')}
          </Button>
        )}
        <CopyButton text={note.note.title} label={t('copy.title')} />
        <CopyButton text={note.note.content} label={t('copy.body')} />
        <CopyButton text={`${note.note.content}\n\n${tags.map((tag) => `#${tag}`).join(' ')}`} label={t('copy.bodyTags')} />
      </Space>
    </Card>
  );
}

export default function FissionPage() {
  const { t } = useTranslation();
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  // The server settles each image with its note and the fission at once, and says what is still in flight.
  const poll = (data: { status: string; running: number } | undefined) => (data && (data.status === 'generating' || data.running > 0) ? 1500 : false);
  const fission = useQuery({
    queryKey: queryKeys.fission.detail(id),
    queryFn: () => api.fission.get(id),
    refetchInterval: (q) => poll(q.state.data && { status: q.state.data.status, running: q.state.data.progress.running }),
  });
  const notes = useQuery({ queryKey: queryKeys.fission.notes(id), queryFn: () => api.fission.notes(id), refetchInterval: (q) => poll(q.state.data) });
  const download = useMutation({ mutationFn: async () => saveFile(await api.fission.download(id), `fission_${id}.zip`) });
  const progress = fission.data?.progress;
  // The fission rewrites its source task with the same workspace's connections: where the source
  // is demo output, so are its notes (the fission itself does not say which provider wrote it).
  const sourceId = fission.data?.source_task_id;
  const source = useQuery({ queryKey: queryKeys.task.detail(sourceId ?? 0), queryFn: () => api.tasks.get(sourceId!), enabled: sourceId !== undefined });
  const demo = demoOrigin(source.data?.providers);
  const [editing, setEditing] = useState<FissionNote>();
  const [scheduling, setScheduling] = useState<FissionNote>();
  const can = useCan();
  const edit = useMutation({
    mutationFn: (v: EditValues) => api.fission.editNote(id, editing!.seq, v),
    onSuccess: () => {
      setEditing(undefined);
      notifySuccess(t('fissionList.saved'));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.fission.notes(id) }),
  });

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>
          {t('fission.page', { id })}
        </PageTitle>
        <Button icon={<DownloadOutlined aria-hidden />} onClick={() => download.mutate()} loading={download.isPending} disabled={!notes.data?.notes.length}>
          {t('fission.download')}
        </Button>
      </Space>
      <QueryError error={fission.error ?? notes.error} />
      <DemoNotice origin={demo} fission />
      {fission.data?.error && <Alert type="warning" showIcon title={wordFailure(t, { key: fission.data.error_key, params: fission.data.error_params })} style={{ marginBottom: 16 }} />}
      {fission.data && progress && (
        <Card size="small" style={{ marginBottom: 16 }}>
          <Descriptions size="small" column={{ xs: 1, md: 4 }}>
            <Descriptions.Item label={t('fission.status')}>
              <span data-testid="fission-status">{t(`fission.statuses.${fission.data.status}`)}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('fission.level')}>{t(`fission.levels.${fission.data.reference_level}`)}</Descriptions.Item>
            <Descriptions.Item label={t('fission.fanout')}>{fission.data.fanout_count}</Descriptions.Item>
            <Descriptions.Item label={t('fission.progress')}>
              {t('fission.progressText', { done: progress.done, failed: progress.failed, total: fission.data.fanout_count })}
            </Descriptions.Item>
          </Descriptions>
          <Progress
            percent={Math.round(((progress.done + progress.failed) / Math.max(fission.data.fanout_count, 1)) * 100)}
            success={{ percent: Math.round((progress.done / Math.max(fission.data.fanout_count, 1)) * 100) }}
            aria-label={t('fission.progress')}
          />
        </Card>
      )}
      {notes.data && notes.data.notes.length === 0 && <Empty description={t('fission.noNotes')} />}
      <Row gutter={[16, 16]}>
        {notes.data?.notes.map((n) => (
          <Col key={n.seq} xs={24} md={12} xl={8}>
            <NoteCard
              fissionId={id}
              note={n}
              demo={demo}
              onEdit={() => setEditing(n)}
              onRetried={() => void refresh.fission(queryClient, id)}
              onSchedule={fission.data?.status === 'completed' && can('posts.write') ? () => setScheduling(n) : undefined}
            />
          </Col>
        ))}
      </Row>
      {scheduling && (
        <ScheduleDialog
          source={{ fission_id: id, seq: scheduling.seq }}
          title={`${t('publishing.schedule.title')} · ${t('fission.set', { seq: scheduling.seq })}`}
          onClose={() => setScheduling(undefined)}
        />
      )}
      <EditTextModal
        open={Boolean(editing)}
        initial={editing && { key: editing.seq, title: editing.note.title, content: editing.note.content, tags: editing.note.tags, cover_title: editing.note.cover_title }}
        images={(editing?.images ?? []).filter((i) => i.url).map((i) => ({ url: i.url!, alt: `${editing!.seq} ${t(`imageRole.${i.role}`)}` }))}
        demo={demo.text || demo.image}
        saving={edit.isPending}
        onCancel={() => setEditing(undefined)}
        onSave={(v) => edit.mutate(v)}
      />
    </>
  );
}
