import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, DatePicker, Form, Modal, Select, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ApiError, errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { queryKeys, refresh } from '../../api/queryKeys';
import type { PostCreate } from '../../api/types';
import { useCan } from '../../app/abilities';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';

/** The note a post is made from: a set of an approved task, or a note of a completed fission. */
export type PostSource = { task_id: number; strategy: NonNullable<PostCreate['strategy']> } | { fission_id: number; seq: number };

interface Values {
  account_id?: number;
  scheduled_at?: Dayjs;
}

/** The accounts a post can go to: the active ones (one page is plenty: a team runs a handful). */
export function useActiveAccounts(enabled = true) {
  return useQuery({
    queryKey: queryKeys.accounts.list({ active: true }),
    queryFn: () => api.accounts.list({ active: true, page: 1, page_size: 100 }),
    enabled,
  });
}

/** The next full hour after an hour from now: a time the server will take (it refuses the past). */
function defaultTime(): Dayjs {
  return dayjs().add(2, 'hour').startOf('hour');
}

/**
 * 排期发布: picks an account and a time and schedules the note (`createPost`). A refusal shows
 * the server's reason (daily cap, gap, the same note elsewhere); a near-duplicate of a recent post
 * can be scheduled anyway by supervisors and admins (`force`).
 */
export function ScheduleDialog({ source, title, onClose }: { source: PostSource; title?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const can = useCan();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const accounts = useActiveAccounts();
  const items = accounts.data?.items ?? [];
  const [last, setLast] = useState<Values>();
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: { values: Values; force: boolean }) =>
      api.posts.create({
        account_id: v.values.account_id!,
        scheduled_at: v.values.scheduled_at!.toISOString(),
        ...source,
        ...(v.force ? { force: true } : {}),
      }),
    onSuccess: (post) => {
      notifySuccess(t('publishing.schedule.done', { account: post.account_name, time: formatTime(post.scheduled_at) }));
      void refresh.posts(queryClient);
      onClose();
    },
  });
  const submit = (values: Values) => {
    setLast(values);
    create.mutate({ values, force: false });
  };
  const nearDuplicate = create.error instanceof ApiError && create.error.reason === 'post.near_duplicate';

  return (
    <Modal
      open
      title={title ?? t('publishing.schedule.title')}
      okText={t('publishing.schedule.submit')}
      cancelText={t('form.cancel')}
      okButtonProps={{ disabled: items.length === 0 }}
      confirmLoading={create.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      {accounts.isSuccess && items.length === 0 && <Alert type="info" showIcon title={t('publishing.schedule.noAccounts')} style={{ marginBottom: 12 }} />}
      {create.error && (
        <Alert
          type={nearDuplicate ? 'warning' : 'error'}
          showIcon
          role="alert"
          data-testid="schedule-error"
          title={errorMessage(create.error)}
          style={{ marginBottom: 12 }}
          action={
            nearDuplicate && can('posts.force') && last ? (
              <Button size="small" danger loading={create.isPending} onClick={() => create.mutate({ values: last, force: true })}>
                {t('publishing.schedule.force')}
              </Button>
            ) : undefined
          }
        />
      )}
      {accounts.error && <Alert type="error" showIcon role="alert" title={errorMessage(accounts.error)} style={{ marginBottom: 12 }} />}
      {items.length > 0 && (
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{ account_id: items[0]!.id, scheduled_at: defaultTime() }}
          onFinish={submit}
          onValuesChange={() => create.reset()}
        >
          <Form.Item label={t('publishing.schedule.account')} name="account_id" rules={[{ required: true, message: t('form.required') }]}>
            <Select options={items.map((a) => ({ value: a.id, label: a.name }))} />
          </Form.Item>
          <Form.Item label={t('publishing.schedule.time')} name="scheduled_at" rules={[{ required: true, message: t('form.required') }]}>
            <DatePicker showTime={{ format: 'HH:mm', minuteStep: 5 }} format="YYYY-MM-DD HH:mm" style={{ width: '100%' }} />
          </Form.Item>
        </Form>
      )}
      <Space>
        <Link to="/calendar">{t('publishing.schedule.openCalendar')}</Link>
      </Space>
    </Modal>
  );
}
