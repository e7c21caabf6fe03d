import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Form, InputNumber, List, Modal, Radio, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../../api/endpoints';
import type { ReferenceLevel } from '../../api/types';
import { formatTime } from '../../components/format';
import { tone } from '../../components/tags';
import { queryKeys } from '../../api/queryKeys';
import { AccountSelect } from '../publishing/AccountSelect';

interface Values {
  reference_level: ReferenceLevel;
  fanout_count: number;
  account_id?: number;
}

/** The task's fissions, as every member of the workspace sees them (server records), and starting a new one. */
export function FissionStart({ taskId, canStart }: { taskId: number; canStart: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<Values>();
  const fissions = useQuery({
    queryKey: queryKeys.task.fissions(taskId),
    queryFn: () => api.fission.list({ source_task_id: taskId, page: 1, page_size: 20 }),
    refetchInterval: (q) => (q.state.data?.items.some((f) => f.status === 'generating') ? 3000 : false),
  });
  const create = useMutation({
    mutationFn: (v: Values) => api.fission.create(taskId, v.reference_level, v.fanout_count, v.account_id),
    onSuccess: (d) => navigate(`/fission/${d.fission_id}`),
  });
  const items = fissions.data?.items ?? [];
  return (
    <>
      {canStart && <Button onClick={() => setOpen(true)}>{t('fission.start')}</Button>}
      <List
        size="small"
        data-testid="task-fissions"
        locale={{ emptyText: <Typography.Text style={{ color: '#595959' }}>{t('fissionList.empty')}</Typography.Text> }}
        dataSource={items}
        renderItem={(f) => (
          <List.Item key={f.fission_id}>
            <Space direction="vertical" size={0}>
              <Space size={4} wrap>
                <Link to={`/fission/${f.fission_id}`}>{t('fission.record', { id: f.fission_id })}</Link>
                <Tag color={tone(f.status === 'failed' ? 'red' : f.status === 'completed' ? 'green' : 'blue')}>{t(`fission.statuses.${f.status}`)}</Tag>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {t(`fission.levels.${f.reference_level}`)} · {f.fanout_count}
                </Typography.Text>
              </Space>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('fissionList.by', { user: f.created_by.username, at: formatTime(f.created_at) })}
              </Typography.Text>
            </Space>
          </List.Item>
        )}
      />
      <Modal
        open={open}
        title={t('fission.start')}
        okText={t('fission.create')}
        cancelText={t('form.cancel')}
        confirmLoading={create.isPending}
        onCancel={() => setOpen(false)}
        onOk={() => form.submit()}
      >
        <Form<Values> form={form} layout="vertical" initialValues={{ reference_level: 'mid', fanout_count: 3 }} onFinish={(v) => create.mutate(v)}>
          <Form.Item label={t('fission.level')} name="reference_level">
            <Radio.Group
              optionType="button"
              options={(['low', 'mid', 'high'] as const).map((l) => ({ value: l, label: t(`fission.levels.${l}`) }))}
            />
          </Form.Item>
          <Form.Item
            label={t('fission.fanout')}
            name="fanout_count"
            rules={[
              { required: true, message: t('form.required') },
              // Said rather than clamped: a 7 typed in must not quietly become 5.
              { type: 'number', max: 5, message: t('review2.fanoutMax') },
              { type: 'number', min: 1, message: t('review2.fanoutMin') },
            ]}
          >
            <InputNumber precision={0} />
          </Form.Item>
          <Form.Item label={t('publishing.forAccount.label')} name="account_id" extra={t('publishing.forAccount.fissionHint')}>
            <AccountSelect />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
