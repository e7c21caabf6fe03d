import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CalendarOutlined, CommentOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Checkbox, Col, Collapse, Empty, Form, Image, Input, Modal, Popconfirm, Row, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PASS_LINE } from '../../api/constants';
import { api } from '../../api/endpoints';
import type { CommentAnchor, Page, PreviousRejection, ReviewItem, SelectedSet } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { HighlightText, hitsIn, type BannedHit } from '../../components/HighlightText';
import { QueryError } from '../../components/QueryError';
import { ScoreBreakdown } from '../../components/ScoreBreakdown';
import { TaskComments, useTaskComments } from '../../components/TaskComments';
import { TextDiff } from '../../components/TextDiff';
import { DemoTag, demoOrigin, type DemoOrigin } from '../../components/demo';
import { BannedStatusTag, tone } from '../../components/tags';
import { Thumb } from '../../components/Thumb';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';
import { useCan } from '../../app/abilities';
import { ScheduleDialog } from '../publishing/ScheduleDialog';

type ReviewText = NonNullable<SelectedSet['selected_text']>;

/** The body's lines with their offsets, so the server's banned-word offsets can be marked per line. */
function bodyLines(content: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  let at = 0;
  for (const line of content.split('\n')) {
    out.push({ text: line, start: at });
    at += line.length + 1;
  }
  return out;
}

/** The hits inside one line, moved to its offsets. */
function lineHits(hits: readonly BannedHit[], start: number, length: number): BannedHit[] {
  return hits.filter((h) => h.start >= start && h.end <= start + length).map((h) => ({ ...h, start: h.start - start, end: h.end - start }));
}

/** What the reviewer should not miss: every word the check left in the text, and a total under the pass line. */
function Warnings({ text }: { text: ReviewText }) {
  const { t } = useTranslation();
  const hits = text.banned_hits;
  const below = text.score.total < PASS_LINE;
  if (hits.length === 0 && !below) return null;
  return (
    <Alert
      type={hits.some((h) => h.level === 'hard_block') ? 'error' : 'warning'}
      showIcon
      style={{ marginTop: 8 }}
      data-testid="review-warnings"
      title={t('review2.warnings')}
      description={
        <ul style={{ margin: 0, paddingLeft: 18 }}>
          {below && <li>{t('review2.belowLine', { total: text.score.total, line: PASS_LINE })}</li>}
          {[...new Map(hits.map((h) => [`${h.level}:${h.word}`, h])).values()].map((h) => (
            <li key={`${h.level}:${h.word}`}>{t(`review2.hit.${h.level}`, { word: h.word })}</li>
          ))}
        </ul>
      }
    />
  );
}

interface SetProps {
  set: SelectedSet;
  demo: DemoOrigin;
  /** Open comments per text line ("candidate:line") and per image candidate. */
  openOn: Map<string, number>;
  onPick: (anchor: CommentAnchor) => void;
  picked?: CommentAnchor;
}

/** `demo`: what of the task the offline demo provider made; a reviewer should never approve it for publishing unawares. */
function SetColumn({ set, demo, openOn, onPick, picked }: SetProps) {
  const { t } = useTranslation();
  const text = set.selected_text;
  return (
    <Card size="small" title={t('editing.setTitle', { set: set.strategy, name: t(`editing.strategy.${set.strategy}`) })} data-testid={`review-set-${set.strategy}`} style={{ height: '100%' }}>
      {text ? (
        <>
          <Typography.Title level={2} style={{ marginTop: 0, fontSize: 16 }}>
            <HighlightText text={text.title} hits={hitsIn(text.banned_hits, 'title')} />
          </Typography.Title>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('review2.comments.lineHint')}
          </Typography.Text>
          <div data-testid={`review-body-${set.strategy}`} style={{ margin: '4px 0 8px' }}>
            {bodyLines(text.content).map((line, i) => {
              const n = i + 1;
              const open = openOn.get(`${text.candidate_id}:${n}`) ?? 0;
              const isPicked = picked?.kind === 'text' && picked.candidate_id === text.candidate_id && picked.line === n;
              return (
                <div
                  key={n}
                  role="button"
                  tabIndex={0}
                  aria-label={t('review2.comments.lineButton', { line: n, text: line.text })}
                  aria-pressed={isPicked}
                  data-testid="review-line"
                  data-line={n}
                  className="review-line"
                  onClick={() => onPick({ kind: 'text', candidate_id: text.candidate_id, line: n })}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault();
                      onPick({ kind: 'text', candidate_id: text.candidate_id, line: n });
                    }
                  }}
                  style={{
                    cursor: 'pointer',
                    minHeight: '1.6em',
                    padding: '0 4px',
                    borderRadius: 4,
                    overflowWrap: 'anywhere',
                    background: isPicked ? '#e6f4ff' : open ? '#fff7e6' : undefined,
                    borderLeft: `3px solid ${isPicked ? '#1677ff' : open ? '#fa8c16' : 'transparent'}`,
                  }}
                >
                  <HighlightText text={line.text} hits={lineHits(hitsIn(text.banned_hits, 'content'), line.start, line.text.length)} />
                  {open > 0 && (
                    <Tag color={tone('orange')} style={{ marginLeft: 6 }} aria-label={t('review2.comments.lineHasComments', { count: open })}>
                      <CommentOutlined aria-hidden /> {open}
                    </Tag>
                  )}
                </div>
              );
            })}
          </div>
          <Typography.Paragraph type="secondary">
            {text.tags.map((tag, i) => (
              <span key={i} style={{ marginRight: 6 }}>
                #<HighlightText text={tag} hits={hitsIn(text.banned_hits, 'tags', i)} />
              </span>
            ))}
          </Typography.Paragraph>
          <Space size={4} wrap>
            {demo.text && text.source === 'ai' && <DemoTag />}
            <BannedStatusTag status={text.banned_word_status} />
          </Space>
          <ScoreBreakdown score={text.score} />
          <Warnings text={text} />
        </>
      ) : (
        <Typography.Text type="secondary">{t('review.noText')}</Typography.Text>
      )}
      <Image.PreviewGroup>
        <Space wrap style={{ marginTop: 8 }} align="start">
          {set.selected_images.map((img) => {
            const open = openOn.get(`image:${img.candidate_id}`) ?? 0;
            return (
              <Space key={img.candidate_id} direction="vertical" size={2} align="center">
                <Thumb url={img.url ?? ''} alt={`${set.strategy}-${img.seq} ${t(`imageRole.${img.role}`)}`} width={90} demo={demo.image && img.source === 'ai'} />
                <Button
                  size="small"
                  type={picked?.kind === 'image' && picked.candidate_id === img.candidate_id ? 'primary' : 'link'}
                  icon={<CommentOutlined aria-hidden />}
                  onClick={() => onPick({ kind: 'image', candidate_id: img.candidate_id })}
                  aria-label={`${t('review2.comments.commentImage')} ${set.strategy}-${img.seq}`}
                  data-testid="review-image-comment"
                >
                  {open > 0 ? open : null}
                </Button>
              </Space>
            );
          })}
        </Space>
      </Image.PreviewGroup>
    </Card>
  );
}

/** The note the operator left, and the last rejection with what changed since, set by set. */
function Context({ item }: { item: ReviewItem }) {
  const { t } = useTranslation();
  const prev = item.previous_rejection;
  return (
    <>
      {item.submit_note && (
        <Alert type="info" showIcon style={{ marginBottom: 12 }} data-testid="review-note" title={t('review2.note')} description={<span style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{item.submit_note}</span>} />
      )}
      {prev && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="review-previous"
          title={
            <Space wrap size={4}>
              <span>{t('review2.previous')}</span>
              {prev.final && <Tag color={tone('red')}>{t('review2.previousFinal')}</Tag>}
              <Typography.Text type="secondary">{t('review2.previousBy', { name: prev.username, time: formatTime(prev.created_at) })}</Typography.Text>
            </Space>
          }
          description={
            <>
              <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', marginBottom: 8 }}>{prev.reason || t('review2.noReason')}</Typography.Paragraph>
              <Collapse
                size="small"
                defaultActiveKey={['changes']}
                items={[{ key: 'changes', label: t('review2.changes'), children: <Changes item={item} prev={prev} /> }]}
              />
            </>
          }
        />
      )}
    </>
  );
}

/** Per set, the text as rejected against the text now: title, body and tags, word by word. */
export function Changes({ item, prev }: { item: Pick<ReviewItem, 'selected_sets'>; prev: PreviousRejection }) {
  const { t } = useTranslation();
  // Only sets with a text then or now: a set empty both times has nothing to compare.
  const strategies = [...new Set([...item.selected_sets.filter((s) => s.selected_text).map((s) => s.strategy as string), ...prev.texts.map((x) => x.strategy ?? '')])]
    .filter(Boolean)
    .sort();
  return (
    <div data-testid="review-changes">
      {strategies.map((strategy) => {
        const before = prev.texts.find((x) => x.strategy === strategy);
        const after = item.selected_sets.find((s) => s.strategy === strategy)?.selected_text ?? undefined;
        return (
          <div key={strategy} data-testid={`review-diff-${strategy}`} style={{ marginBottom: 12 }}>
            <Typography.Text strong>{t('review2.changesOf', { set: strategy })}</Typography.Text>
            {before && after && before.score_total !== after.score.total && (
              <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
                {t('review2.scoreWas', { before: before.score_total, after: after.score.total })}
              </Typography.Text>
            )}
            {!before ? (
              <div>{t('review2.setGone')}</div>
            ) : !after ? (
              <div>{t('review2.setRemoved')}</div>
            ) : (
              <dl style={{ margin: '4px 0 0', display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', gap: '4px 8px' }}>
                <dt>{t('review2.fieldTitle')}</dt>
                <dd style={{ margin: 0 }}>
                  <TextDiff before={before.title} after={after.title} testId={`diff-title-${strategy}`} />
                </dd>
                <dt>{t('review2.fieldContent')}</dt>
                <dd style={{ margin: 0 }}>
                  <TextDiff before={before.content} after={after.content} testId={`diff-content-${strategy}`} />
                </dd>
                <dt>{t('review2.fieldTags')}</dt>
                <dd style={{ margin: 0 }}>
                  <TextDiff before={before.tags.map((x) => `#${x}`).join(' ')} after={after.tags.map((x) => `#${x}`).join(' ')} testId={`diff-tags-${strategy}`} />
                </dd>
              </dl>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** One task of the queue: context, the sets with clickable lines, comments, and the decision buttons. */
function ReviewCard({ item, onApprove, approving, onReject }: { item: ReviewItem; onApprove: () => void; approving: boolean; onReject: () => void }) {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<CommentAnchor>();
  const comments = useTaskComments(item.task_id);
  const openOn = new Map<string, number>();
  for (const c of comments.data?.items ?? []) {
    if (c.resolved) continue;
    const key = c.anchor.kind === 'text' ? `${c.anchor.candidate_id}:${c.anchor.line}` : c.anchor.kind === 'image' ? `image:${c.anchor.candidate_id}` : 'task';
    openOn.set(key, (openOn.get(key) ?? 0) + 1);
  }
  const openCount = comments.data ? (comments.data.items.filter((c) => !c.resolved).length) : item.open_comments;
  const describe = (a: CommentAnchor): string => {
    if (a.kind === 'task') return t('review2.comments.onTask');
    for (const s of item.selected_sets) {
      if (a.kind === 'text' && s.selected_text?.candidate_id === a.candidate_id) return t('review2.comments.onSetLine', { set: s.strategy, line: a.line });
      const img = a.kind === 'image' ? s.selected_images.find((i) => i.candidate_id === a.candidate_id) : undefined;
      if (img) return t('review2.comments.onSetImage', { set: s.strategy, seq: img.seq, role: t(`imageRole.${img.role}`) });
    }
    return a.kind === 'text' ? t('review2.comments.onLine', { line: a.line }) : t('review2.comments.onImage');
  };
  return (
    <Card
      data-testid="review-item"
      data-task={item.task_id}
      style={{ marginBottom: 16 }}
      // The task's title line wraps on a phone instead of vanishing under the buttons.
      styles={{ header: { paddingBlock: 8, flexWrap: 'wrap', gap: 8 }, title: { whiteSpace: 'normal' } }}
      title={
        <Space wrap>
          <Link to={`/tasks/${item.task_id}`}>
            #{item.task_id} {item.theme}
          </Link>
          <Typography.Text type="secondary">
            {item.product_name} · {t('review.by', { name: item.operator_name })} · {formatTime(item.submitted_at)}
          </Typography.Text>
          {openCount > 0 && <Tag color={tone('orange')}>{t('review2.openComments', { count: openCount })}</Tag>}
        </Space>
      }
      extra={
        <Space>
          <Popconfirm
            title={t('review2.approveConfirm', { id: item.task_id })}
            description={t('review2.approveConfirmHint')}
            okText={t('review2.approveOk')}
            cancelText={t('form.cancel')}
            onConfirm={onApprove}
          >
            <Button type="primary" loading={approving} data-testid="review-approve">
              {t('review.approve')}
            </Button>
          </Popconfirm>
          <Button danger onClick={onReject} data-testid="review-reject">
            {t('review.reject')}
          </Button>
        </Space>
      }
    >
      <Context item={item} />
      <Row gutter={[12, 12]}>
        {item.selected_sets.map((set) => (
          <Col key={set.strategy} xs={24} md={Math.max(8, 24 / Math.max(item.selected_sets.length, 1))}>
            <SetColumn set={set} demo={demoOrigin(item.providers)} openOn={openOn} onPick={setPicked} picked={picked} />
          </Col>
        ))}
      </Row>
      <Card size="small" title={t('review2.comments.title')} style={{ marginTop: 12 }}>
        <TaskComments taskId={item.task_id} target={picked} targetLabel={picked ? describe(picked) : undefined} onClearTarget={() => setPicked(undefined)} describe={describe} />
      </Card>
    </Card>
  );
}

interface RejectValues {
  reason: string;
  final?: boolean;
}

export default function ReviewPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  // New submissions appear without a reload (the menu's count refreshes on the same key).
  const queue = useQuery({ queryKey: queryKeys.reviewQueue.all(), queryFn: api.review.queue, refetchInterval: 30_000 });
  const [rejecting, setRejecting] = useState<ReviewItem>();
  const [form] = Form.useForm<RejectValues>();
  /** The decided task leaves the list at once (the refetch confirms it), with a message saying so. */
  const done = (text: string, taskId: number) => {
    notifySuccess(text);
    queryClient.setQueryData<Page<ReviewItem>>(queryKeys.reviewQueue.all(), (old) =>
      old ? { ...old, items: old.items.filter((i) => i.task_id !== taskId), total: Math.max(0, old.total - 1) } : old,
    );
    void refresh.reviewQueue(queryClient);
  };
  const can = useCan();
  // The task just approved, kept after it leaves the queue: its sets can be scheduled from here.
  const [approved, setApproved] = useState<ReviewItem>();
  const [scheduling, setScheduling] = useState<SelectedSet['strategy']>();
  const approve = useMutation({
    mutationFn: (item: ReviewItem) => api.review.approve(item.task_id),
    onSuccess: (_, item) => {
      setApproved(item);
      done(t('review2.approvedLeft', { id: item.task_id }), item.task_id);
    },
  });
  const schedulable = approved && can('posts.write') ? approved.selected_sets.filter((s) => s.selected_text) : [];
  const reject = useMutation({
    mutationFn: (v: RejectValues & { taskId: number }) => api.review.reject(v.taskId, v.reason.trim(), Boolean(v.final)),
    onSuccess: (_, v) => {
      setRejecting(undefined);
      done(t('review2.rejectedLeft', { id: v.taskId }), v.taskId);
    },
  });

  return (
    <>
      <PageTitle style={{ marginBottom: 16 }}>
        {t('review.title')}
      </PageTitle>
      {approved && schedulable.length > 0 && (
        <Alert
          type="success"
          showIcon
          closable={{ 'aria-label': t('review.later'), onClose: () => setApproved(undefined) }}
          style={{ marginBottom: 16 }}
          data-testid="approved-schedule"
          title={t('review.approvedSchedule', { id: approved.task_id })}
          description={
            <Space wrap style={{ marginTop: 4 }}>
              {schedulable.map((s) => (
                <Button key={s.strategy} type="primary" size="small" icon={<CalendarOutlined aria-hidden />} onClick={() => setScheduling(s.strategy)} data-testid={`review-schedule-${s.strategy}`}>
                  {t('publishing.schedule.buttonSet', { set: s.strategy })}
                </Button>
              ))}
            </Space>
          }
        />
      )}
      {approved && scheduling && (
        <ScheduleDialog
          source={{ task_id: approved.task_id, strategy: scheduling }}
          title={`${t('publishing.schedule.title')} · #${approved.task_id} ${t('editing.setTitle', { set: scheduling, name: t(`editing.strategy.${scheduling}`) })}`}
          onClose={() => setScheduling(undefined)}
        />
      )}
      <QueryError error={queue.error} />
      {queue.data && queue.data.items.length === 0 && <Empty description={t('review.empty')} />}
      {queue.data?.items.map((item) => (
        <ReviewCard
          key={item.task_id}
          item={item}
          approving={approve.isPending && approve.variables?.task_id === item.task_id}
          onApprove={() => approve.mutate(item)}
          onReject={() => setRejecting(item)}
        />
      ))}
      <Modal
        open={Boolean(rejecting)}
        title={t('review.rejectTitle', { id: rejecting?.task_id })}
        okText={t('review.reject')}
        okButtonProps={{ danger: true }}
        cancelText={t('form.cancel')}
        confirmLoading={reject.isPending}
        onCancel={() => setRejecting(undefined)}
        onOk={() => form.submit()}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" onFinish={(v: RejectValues) => reject.mutate({ ...v, taskId: rejecting!.task_id })} preserve={false}>
          <Form.Item label={t('review.reason')} name="reason" rules={[{ required: true, whitespace: true, message: t('review.reasonRequired') }]}>
            <Input.TextArea autoSize={{ minRows: 3 }} />
          </Form.Item>
          <Form.Item name="final" valuePropName="checked">
            <Checkbox>{t('review.final')}</Checkbox>
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
