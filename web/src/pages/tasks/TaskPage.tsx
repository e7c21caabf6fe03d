import { CalendarOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Col, Popconfirm, Row, Space, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { api } from '../../api/endpoints';
import { wordFailure } from '../../api/errorText';
import { STRATEGIES, type ImageCandidate, type Strategy, type TaskAction, type TaskDetail, type TextCandidate } from '../../api/types';
import { notifyError, notifySuccess } from '../../app/notify';
import { PageSpin } from '../../app/guards';
import { demoOrigin, DemoNotice } from '../../components/demo';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { applyImageSelection, applyTextSelection, canSubmitForReview, deliveredImages } from '../../components/selection';
import { TaskStatusTag } from '../../components/tags';
import { isGenerating, useLive, useTaskStream } from '../../hooks/taskStream';
import { framingFields } from './uploadChecks';
import { editWarning, failedSlots } from './versions';
import { SubmitReview } from './SubmitReview';
import { refetchWhenLastSettles } from '../../hooks/optimistic';
import { byId, CandidateBoard, type BoardActions } from './CandidateBoard';
import { DeliveryPanel } from './DeliveryPanel';
import { ScheduleDialog } from '../publishing/ScheduleDialog';
import { useCan } from '../../app/abilities';
import { EditTextModal, type EditValues } from './EditTextModal';
import { FissionStart } from './FissionStart';
import { ImportTextForm } from './ImportTextForm';
import { LivePanel } from './LivePanel';
import { PhonePreview } from './PhonePreview';
import { PreferencePanel } from './PreferencePanel';
import { ReviewHistory } from './ReviewHistory';
import { TaskComments } from '../../components/TaskComments';
import { queryKeys, taskMutationKey } from '../../api/queryKeys';

export default function TaskPage() {
  const { t } = useTranslation();
  const taskId = Number(useParams().id);
  const key = useMemo(() => queryKeys.task.detail(taskId), [taskId]);
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const task = useQuery({
    queryKey: key,
    queryFn: () => api.tasks.get(taskId),
    // The stream drives updates; a slow poll covers a client that cannot stream at all.
    refetchInterval: (q) => (isGenerating(q.state.data?.status) ? 5000 : false),
  });
  const store = useTaskStream(taskId, Boolean(task.data));
  const [editing, setEditing] = useState<TextCandidate>();

  const patch = (update: (d: TaskDetail) => TaskDetail) =>
    queryClient.setQueryData<TaskDetail>(key, (d) => (d ? update(d) : d));
  const optimistic = refetchWhenLastSettles(queryClient, taskMutationKey(taskId), key);
  const selectText = useMutation({
    mutationFn: (v: { c: TextCandidate; selected: boolean }) => api.tasks.selectText(taskId, v.c.candidate_id, v.selected),
    onMutate: async (v) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<TaskDetail>(key);
      patch((d) => ({ ...d, text_candidates: applyTextSelection(d.text_candidates, v.c.candidate_id, v.selected) }));
      return { previous };
    },
    onError: (_e, _v, ctx) => queryClient.setQueryData(key, ctx?.previous),
    ...optimistic,
  });
  const selectImage = useMutation({
    mutationFn: (v: { c: ImageCandidate; selected: boolean }) => api.tasks.selectImage(taskId, v.c.candidate_id, v.selected),
    onMutate: async (v) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<TaskDetail>(key);
      patch((d) => ({ ...d, image_candidates: applyImageSelection(d.image_candidates, v.c.candidate_id, v.selected) }));
      return { previous };
    },
    onError: (_e, _v, ctx) => queryClient.setQueryData(key, ctx?.previous),
    ...optimistic,
  });
  const edit = useMutation({
    mutationFn: (v: EditValues) =>
      api.tasks.editText(taskId, editing!.candidate_id, { content: v.content, title: v.title, tags: v.tags, cover_title: v.cover_title }),
    onSuccess: (saved) => {
      setEditing(undefined);
      // Saved, but the banned words it still holds are named.
      const said = editWarning(saved.banned_hits);
      if (said) void message[said.level](t(said.key, { words: said.words }));
    },
    ...optimistic,
  });
  const regenerate = useMutation({ mutationFn: () => api.tasks.regenerate(taskId), ...optimistic });
  const submit = useMutation({ mutationFn: (note?: string) => api.tasks.submitReview(taskId, note), ...optimistic });
  const archive = useMutation({ mutationFn: () => api.tasks.archive(taskId), ...optimistic });
  const [scheduling, setScheduling] = useState<Strategy>();
  const can = useCan();
  const canComment = can('tasks.write');
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });

  const liveImages = useLive(store, (s) => s.images);
  const baseImages = task.data?.image_candidates;
  const images = useMemo(() => byId(baseImages ?? [], liveImages), [baseImages, liveImages]);
  const failed = useMemo(() => failedSlots(images), [images]);
  const allowed = useMemo(() => new Set<TaskAction>(task.data?.allowed_actions ?? []), [task.data?.allowed_actions]);
  const providers = task.data?.providers;
  const demo = useMemo(() => demoOrigin(providers), [providers]);
  const actions: BoardActions = useMemo(
    () => ({
      canSelect: allowed.has('select'),
      canEdit: allowed.has('edit'),
      canRegenerate: allowed.has('regenerate_image'),
      canUpload: allowed.has('upload_image'),
      canRetry: allowed.has('retry_images'),
      canEditCaption: allowed.has('edit'),
      demo,
      onSelectText: (c, selected) => selectText.mutate({ c, selected }),
      onSelect: (c, selected) => selectImage.mutate({ c, selected }),
      onEdit: setEditing,
      onRegenerate: (c, instruction) =>
        api.tasks
          .regenerateImage(taskId, c.candidate_id, instruction)
          .then(() => notifySuccess(t('editing.regenerateQueued')))
          .finally(refresh),
      onCaption: (c, caption) =>
        api.tasks
          .editImageCaption(taskId, c.candidate_id, caption)
          .then(() => notifySuccess(t('editing.captionSaved')))
          .finally(refresh),
      onUpload: (c, file, framing) =>
        api.tasks
          .uploadImage(taskId, { strategy: c.strategy, seq: c.seq, role: c.role }, file, framingFields(framing))
          .then((made) => {
            notifySuccess(t(made.is_selected ? 'desk.uploadedSelected' : 'desk.uploadedVersion'));
            return made;
          })
          .catch((err: unknown) => {
            notifyError(err);
            throw err;
          })
          .finally(refresh),
      onRetry: (candidateIds) =>
        void api.tasks
          .retryImages(taskId, candidateIds)
          .then((r) => (r.queued ? notifySuccess(t('editing.retryQueued', { count: r.count })) : notifySuccess(t('desk.nothingToRetry'))))
          .catch(notifyError)
          .finally(refresh),
    }),
    // mutate functions are stable; only what the server allows changes what the cards may do
    [allowed, demo, taskId],
  );

  if (task.isLoading) return <PageSpin />;
  if (!task.data) return <QueryError error={task.error} />;
  const d = task.data;
  const canSubmit = allowed.has('submit_review') && canSubmitForReview(d.text_candidates);
  const selectedSets = STRATEGIES.map((s) => ({ s, text: d.text_candidates.find((c) => c.strategy === s && c.is_selected) })).filter(
    (x) => d.text_candidates.some((c) => c.strategy === x.s),
  );
  const imagesOf = (c: TextCandidate | undefined) =>
    c?.strategy ? deliveredImages(d.image_candidates, c.strategy).map((i) => ({ url: i.url!, alt: `${i.seq} ${t(`imageRole.${i.role}`)}` })) : [];
  const isDemo = (c: TextCandidate | undefined) =>
    Boolean(c && ((demo.text && c.source === 'ai') || (demo.image && c.strategy && deliveredImages(d.image_candidates, c.strategy).some((i) => i.source === 'ai'))));

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap align="start">
        <div>
          <PageTitle tab={t('taskPage.tab', { id: d.id, theme: d.theme })}>
            {d.theme} <TaskStatusTag status={d.status} />
          </PageTitle>
          <Typography.Text type="secondary">
            #{d.id} · {d.product_name} · {t(`track.${d.track}`)} · {t('taskPage.counts', { texts: d.text_count, images: d.image_count })} ·{' '}
            {formatTime(d.created_at)}
          </Typography.Text>
        </div>
        <Space wrap>
          {allowed.has('retry_images') && failed.length > 0 && (
            <Button danger onClick={() => actions.onRetry()} data-testid="retry-all">
              {t('desk.retryAll', { count: failed.length })}
            </Button>
          )}
          {allowed.has('regenerate') && (
            <Popconfirm
              title={t('editing.regenConfirm')}
              okText={t('form.ok')}
              cancelText={t('form.cancel')}
              onConfirm={() => regenerate.mutate()}
              styles={{ root: { maxWidth: 320 } }}
            >
              <Button loading={regenerate.isPending}>{t('taskPage.regenerate')}</Button>
            </Popconfirm>
          )}
          {allowed.has('submit_review') && (
            <SubmitReview
              selected={d.text_candidates.filter((c) => c.is_selected)}
              disabled={!canSubmit}
              busy={submit.isPending}
              onSubmit={(note) => submit.mutateAsync(note)}
              width={Math.min(360 * Math.max(selectedSets.length, 1) + 48, 1160)}
              preview={
                <Space wrap align="start" size={16}>
                  {selectedSets.map(({ s, text }) =>
                    text ? (
                      <PhonePreview key={s} label={t('editing.setTitle', { set: s, name: t(`editing.strategy.${s}`) })} note={text} images={imagesOf(text)} demo={isDemo(text)} />
                    ) : (
                      <Alert key={s} type="info" showIcon title={t('editing.noSelected', { set: s })} />
                    ),
                  )}
                </Space>
              }
            />
          )}
          {d.status === 'approved' &&
            can('posts.write') &&
            selectedSets.flatMap(({ s, text }) =>
              text ? [
                <Button key={`schedule-${s}`} icon={<CalendarOutlined aria-hidden />} onClick={() => setScheduling(s)} data-testid={`schedule-set-${s}`}>
                  {t('publishing.schedule.buttonSet', { set: s })}
                </Button>,
              ] : [],
            )}
          {allowed.has('archive') && (
            <Popconfirm title={t('taskPage.archiveConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => archive.mutate()}>
              <Button>{t('taskPage.archive')}</Button>
            </Popconfirm>
          )}
        </Space>
      </Space>

      {d.reject_reason && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          data-testid="reject-reason"
          title={t('taskPage.rejected', { at: formatTime(d.reviewed_at) })}
          description={d.reject_reason}
        />
      )}
      <DemoNotice origin={demo} />
      {d.status === 'failed' && d.failure_reason && <Alert type="error" showIcon style={{ marginBottom: 16 }} title={wordFailure(t, { key: d.failure_key, params: d.failure_params })} />}
      {(d.providers.text || d.providers.image) && (
        <Typography.Paragraph type="secondary" data-testid="task-providers" style={{ marginBottom: 16 }}>
          {(['text', 'image'] as const)
            .flatMap((c) => (d.providers[c] ? [`${t(`connections.use.${c}`)}：${d.providers[c]!.name} · ${d.providers[c]!.model}`] : []))
            .join('　')}
        </Typography.Paragraph>
      )}
      {d.status === 'pending_selection' && !canSubmitForReview(d.text_candidates) && (
        <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('taskPage.selectHint')} />
      )}

      <LivePanel store={store} fallback={d.progress} status={d.status} images={images} />
      {allowed.has('import_text') && <ImportTextForm taskId={taskId} />}
      <CandidateBoard texts={d.text_candidates} images={d.image_candidates} store={store} actions={actions} />
      {/* The reviewer's remarks on lines and images, where the operator fixes them; resolved here when addressed. */}
      <div style={{ marginTop: 24 }} data-testid="task-comments">
        <TaskComments taskId={taskId} canWrite={canComment} />
      </div>
      <Row gutter={16} style={{ marginTop: 24 }}>
        <Col xs={24} md={12} xl={6}>
          <ReviewHistory taskId={taskId} version={d.status} />
        </Col>
        <Col xs={24} md={12} xl={6}>
          <PreferencePanel taskId={taskId} version={d.status} />
        </Col>
        <Col xs={24} md={12} xl={6}>
          <DeliveryPanel taskId={taskId} status={d.status} />
        </Col>
        <Col xs={24} md={12} xl={6}>
          <Card size="small" title={t('fission.title')} style={{ marginBottom: 16 }}>
            <FissionStart taskId={taskId} canStart={allowed.has('fission')} />
          </Card>
        </Col>
      </Row>
      {scheduling && (
        <ScheduleDialog
          source={{ task_id: taskId, strategy: scheduling }}
          title={`${t('publishing.schedule.title')} · ${t('editing.setTitle', { set: scheduling, name: t(`editing.strategy.${scheduling}`) })}`}
          onClose={() => setScheduling(undefined)}
        />
      )}
      <EditTextModal
        open={Boolean(editing)}
        initial={editing && { key: editing.candidate_id, title: editing.title, content: editing.content, tags: editing.tags, cover_title: editing.cover_title }}
        images={imagesOf(editing)}
        demo={isDemo(editing)}
        saving={edit.isPending}
        onCancel={() => setEditing(undefined)}
        onSave={(v) => edit.mutate(v)}
      />
    </>
  );
}
