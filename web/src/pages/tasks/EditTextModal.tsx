import { Flex, Form, Input, Modal, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { NOTE_LIMITS } from '../../api/constants';
import { graphemeCount } from '../../components/graphemes';
import { PhonePreview } from './PhonePreview';

export interface EditValues {
  title: string;
  content: string;
  tags: string[];
  cover_title: string;
}

/** A live counter under a field: graphemes against the server's limit, red once over it. */
export function Counter({ text, max }: { text: string | undefined; max: number }) {
  const { t } = useTranslation();
  const n = graphemeCount(text ?? '');
  const over = n > max;
  return (
    <Typography.Text type={over ? 'danger' : 'secondary'} style={{ fontSize: 12 }} data-testid="counter" aria-live="polite">
      {t('editing.counter', { n, max })}
      {over && ` · ${t('editing.overLimit', { max })}`}
    </Typography.Text>
  );
}

const overLimit = (max: number, message: string) => ({
  validator: (_: unknown, value: string | undefined) => (graphemeCount(value ?? '') > max ? Promise.reject(new Error(message)) : Promise.resolve()),
});

/**
 * Edits a note (a task's text or a fission set): title, body, tags and cover title, each with a
 * live counter from the server's limits, beside a phone preview of the result.
 */
export function EditTextModal({
  open,
  initial,
  images,
  demo = false,
  saving,
  onCancel,
  onSave,
}: {
  open: boolean;
  initial: (EditValues & { key: number | string }) | undefined;
  images: { url: string; alt: string }[];
  /** The note or its images are the offline demo provider's output: the preview says so. */
  demo?: boolean;
  saving: boolean;
  onCancel: () => void;
  onSave: (values: EditValues) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<EditValues>();
  const values = Form.useWatch([], form) as Partial<EditValues> | undefined;
  const tags = values?.tags ?? initial?.tags ?? [];
  const tagsOk = tags.length >= NOTE_LIMITS.tagsMin && tags.length <= NOTE_LIMITS.tagsMax;
  return (
    <Modal
      open={open}
      title={t('candidate.editTitle')}
      okText={t('form.save')}
      cancelText={t('form.cancel')}
      confirmLoading={saving}
      onCancel={onCancel}
      onOk={() => form.submit()}
      width={920}
      destroyOnHidden
    >
      <Flex wrap gap={24}>
        <div style={{ flex: '1 1 340px', minWidth: 0 }}>
          {/* Filled at mount (not after the opening animation), so early typing is never overwritten. */}
          <Form key={initial?.key} form={form} layout="vertical" onFinish={onSave} preserve={false} initialValues={initial}>
            <Form.Item
              label={t('candidate.fieldTitle')}
              name="title"
              extra={<Counter text={values?.title ?? initial?.title} max={NOTE_LIMITS.title} />}
              rules={[{ required: true, whitespace: true, message: t('form.required') }, overLimit(NOTE_LIMITS.title, t('editing.overLimit', { max: NOTE_LIMITS.title }))]}
            >
              <Input />
            </Form.Item>
            <Form.Item
              label={t('editing.fieldCoverTitle')}
              name="cover_title"
              extra={<Counter text={values?.cover_title ?? initial?.cover_title} max={NOTE_LIMITS.cover_title} />}
              rules={[
                { required: true, whitespace: true, message: t('form.required') },
                overLimit(NOTE_LIMITS.cover_title, t('editing.overLimit', { max: NOTE_LIMITS.cover_title })),
              ]}
            >
              <Input />
            </Form.Item>
            <Form.Item
              label={t('candidate.fieldContent')}
              name="content"
              extra={<Counter text={values?.content ?? initial?.content} max={NOTE_LIMITS.content} />}
              rules={[{ required: true, whitespace: true, message: t('form.required') }, overLimit(NOTE_LIMITS.content, t('editing.overLimit', { max: NOTE_LIMITS.content }))]}
            >
              <Input.TextArea autoSize={{ minRows: 6, maxRows: 14 }} />
            </Form.Item>
            <Form.Item
              label={t('candidate.fieldTags')}
              name="tags"
              extra={
                <Typography.Text type={tagsOk ? 'secondary' : 'danger'} style={{ fontSize: 12 }}>
                  {t('editing.tagsCount', { n: tags.length, min: NOTE_LIMITS.tagsMin, max: NOTE_LIMITS.tagsMax })}
                </Typography.Text>
              }
            >
              <Select mode="tags" open={false} suffixIcon={null} aria-label={t('candidate.fieldTags')} />
            </Form.Item>
          </Form>
        </div>
        <div style={{ flex: '0 1 320px', minWidth: 0 }}>
          <PhonePreview
            label={t('editing.previewTitle')}
            note={{ title: values?.title ?? initial?.title ?? '', content: values?.content ?? initial?.content ?? '', tags }}
            images={images}
            demo={demo}
          />
        </div>
      </Flex>
    </Modal>
  );
}
