import { Form, Input, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TextCandidate } from '../../api/types';

export interface EditValues {
  title: string;
  content: string;
  tags: string[];
}

export function EditTextModal({
  candidate,
  saving,
  onCancel,
  onSave,
}: {
  candidate: TextCandidate | undefined;
  saving: boolean;
  onCancel: () => void;
  onSave: (values: EditValues) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<EditValues>();
  return (
    <Modal
      open={Boolean(candidate)}
      title={t('candidate.editTitle')}
      okText={t('form.save')}
      cancelText={t('form.cancel')}
      confirmLoading={saving}
      onCancel={onCancel}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      {/* Filled at mount (not after the opening animation), so early typing is never overwritten. */}
      <Form
        key={candidate?.candidate_id}
        form={form}
        layout="vertical"
        onFinish={onSave}
        preserve={false}
        initialValues={candidate && { title: candidate.title, content: candidate.content, tags: candidate.tags }}
      >
        <Form.Item label={t('candidate.fieldTitle')} name="title">
          <Input />
        </Form.Item>
        <Form.Item label={t('candidate.fieldContent')} name="content" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
          <Input.TextArea autoSize={{ minRows: 6, maxRows: 16 }} />
        </Form.Item>
        <Form.Item label={t('candidate.fieldTags')} name="tags">
          <Select mode="tags" open={false} suffixIcon={null} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
