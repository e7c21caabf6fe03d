import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { STRATEGIES, type Strategy } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { refresh } from '../../api/queryKeys';

interface Values {
  content: string;
  angle_label: string;
  strategy?: Strategy;
}

/** Track `import`: external text goes straight into the candidate pool (scored, banned-word checked). */
export function ImportTextForm({ taskId }: { taskId: number }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const importText = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: Values) => api.tasks.importText(taskId, { ...v, content: v.content.trim(), angle_label: v.angle_label.trim() }),
    onSuccess: () => {
      form.resetFields();
      notifySuccess(t('import.done'));
      void refresh.task(queryClient, taskId);
    },
  });
  return (
    <Card size="small" title={t('import.title')} style={{ marginBottom: 16 }}>
      {importText.error && <Alert type="error" showIcon role="alert" title={errorMessage(importText.error)} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={(v: Values) => importText.mutate(v)}>
        <Form.Item label={t('import.angle')} name="angle_label" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
          <Input />
        </Form.Item>
        <Form.Item label={t('import.content')} name="content" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
          <Input.TextArea autoSize={{ minRows: 4, maxRows: 12 }} />
        </Form.Item>
        <Form.Item label={t('import.strategy')} name="strategy">
          <Select allowClear placeholder={t('import.strategyAuto')} options={STRATEGIES.map((s) => ({ value: s, label: t('editing.setTitle', { set: s, name: t(`editing.strategy.${s}`) }) }))} style={{ width: 200 }} />
        </Form.Item>
        <Button htmlType="submit" type="primary" loading={importText.isPending}>
          {t('import.submit')}
        </Button>
      </Form>
    </Card>
  );
}
