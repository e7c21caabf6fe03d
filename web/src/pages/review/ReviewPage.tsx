import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CalendarOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Checkbox, Col, Empty, Form, Image, Input, Modal, Row, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { api } from '../../api/endpoints';
import type { ReviewItem, SelectedSet } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { ScoreBreakdown } from '../../components/ScoreBreakdown';
import { DemoTag, demoOrigin, type DemoOrigin } from '../../components/demo';
import { BannedStatusTag } from '../../components/tags';
import { Thumb } from '../../components/Thumb';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';
import { useCan } from '../../app/abilities';
import { ScheduleDialog } from '../publishing/ScheduleDialog';

/** `demo`: what of the task the offline demo provider made; a reviewer should never approve it for publishing unawares. */
function SetColumn({ set, demo }: { set: SelectedSet; demo: DemoOrigin }) {
  const { t } = useTranslation();
  const text = set.selected_text;
  return (
    <Card size="small" title={t('editing.setTitle', { set: set.strategy, name: t(`editing.strategy.${set.strategy}`) })} data-testid={`review-set-${set.strategy}`} style={{ height: '100%' }}>
      {text ? (
        <>
          <Typography.Title level={2} style={{ marginTop: 0, fontSize: 16 }}>
            {text.title}
          </Typography.Title>
          <Typography.Paragraph tabIndex={0} style={{ whiteSpace: 'pre-wrap', maxHeight: 200, overflow: 'auto' }}>{text.content}</Typography.Paragraph>
          <Typography.Paragraph type="secondary">{text.tags.map((tag) => `#${tag}`).join(' ')}</Typography.Paragraph>
          <Space size={4} wrap>
            {demo.text && text.source === 'ai' && <DemoTag />}
            <BannedStatusTag status={text.banned_word_status} />
          </Space>
          <ScoreBreakdown score={text.score} />
        </>
      ) : (
        <Typography.Text type="secondary">{t('review.noText')}</Typography.Text>
      )}
      <Image.PreviewGroup>
        <Space wrap style={{ marginTop: 8 }}>
          {set.selected_images.map((img) => (
            <Thumb key={img.candidate_id} url={img.url ?? ''} alt={`${set.strategy}-${img.seq} ${t(`imageRole.${img.role}`)}`} width={90} demo={demo.image && img.source === 'ai'} />
          ))}
        </Space>
      </Image.PreviewGroup>
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
  const done = (text: string) => {
    notifySuccess(text);
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
      done(t('review.approved'));
    },
  });
  const schedulable = approved && can('posts.write') ? approved.selected_sets.filter((s) => s.selected_text) : [];
  const reject = useMutation({
    mutationFn: (v: RejectValues) => api.review.reject(rejecting!.task_id, v.reason.trim(), Boolean(v.final)),
    onSuccess: () => {
      setRejecting(undefined);
      done(t('review.rejected'));
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
        <Card
          key={item.task_id}
          data-testid="review-item"
          style={{ marginBottom: 16 }}
          // The task's title line wraps on a phone instead of vanishing under the buttons.
          styles={{ header: { paddingBlock: 8 }, title: { whiteSpace: 'normal' } }}
          title={
            <Space wrap>
              <Link to={`/tasks/${item.task_id}`}>
                #{item.task_id} {item.theme}
              </Link>
              <Typography.Text type="secondary">
                {item.product_name} · {t('review.by', { name: item.operator_name })} · {formatTime(item.submitted_at)}
              </Typography.Text>
            </Space>
          }
          extra={
            <Space>
              <Button type="primary" loading={approve.isPending && approve.variables?.task_id === item.task_id} onClick={() => approve.mutate(item)}>
                {t('review.approve')}
              </Button>
              <Button danger onClick={() => setRejecting(item)}>
                {t('review.reject')}
              </Button>
            </Space>
          }
        >
          <Row gutter={[12, 12]}>
            {item.selected_sets.map((set) => (
              <Col key={set.strategy} xs={24} md={Math.max(8, 24 / Math.max(item.selected_sets.length, 1))}>
                <SetColumn set={set} demo={demoOrigin(item.providers)} />
              </Col>
            ))}
          </Row>
        </Card>
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
        <Form form={form} layout="vertical" onFinish={(v: RejectValues) => reject.mutate(v)} preserve={false}>
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
