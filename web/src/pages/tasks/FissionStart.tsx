import { useMutation } from '@tanstack/react-query';
import { Button, Form, InputNumber, Modal, Radio, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../../api/endpoints';
import type { ReferenceLevel } from '../../api/types';
import { recentIds, rememberId } from '../../components/recent';

interface Values {
  reference_level: ReferenceLevel;
  fanout_count: number;
}

export function FissionStart({ taskId }: { taskId: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<Values>();
  const previous = recentIds('fissions', taskId);
  const create = useMutation({
    mutationFn: (v: Values) => api.fission.create(taskId, v.reference_level, v.fanout_count),
    onSuccess: (d) => {
      rememberId('fissions', taskId, d.fission_id);
      navigate(`/fission/${d.fission_id}`);
    },
  });
  return (
    <>
      <Space wrap>
        <Button onClick={() => setOpen(true)}>{t('fission.start')}</Button>
        {previous.map((id) => (
          <Link key={id} to={`/fission/${id}`}>
            {t('fission.record', { id })}
          </Link>
        ))}
      </Space>
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
          <Form.Item label={t('fission.fanout')} name="fanout_count" rules={[{ required: true, message: t('form.required') }]}>
            <InputNumber min={1} max={5} precision={0} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
