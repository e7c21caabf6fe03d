import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal, Select, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { BannedLevel, BannedWordBody } from '../../api/types';
import { BannedLevelTag } from '../../components/tags';

const LEVELS: BannedLevel[] = ['hard_block', 'soft_warn', 'auto_fix'];
const MAX_WORDS = 1000;

/**
 * One word per line (commas, 、 and semicolons also separate); "词=替换词" gives an auto-fix its
 * replacement. Blank entries are dropped; repeats are left to the server, which names them.
 */
export function parseWordList(text: string, level: BannedLevel, updatable: boolean): BannedWordBody[] {
  return text
    .split(/[\n\r,，、;；]+/)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [word = '', replacement] = entry.split(/\s*[=＝]\s*/, 2);
      return { word: word.trim(), level, replacement: level === 'auto_fix' && replacement?.trim() ? replacement.trim() : null, updatable };
    })
    .filter((w) => w.word.length > 0 && w.word.length <= 100);
}

interface Values {
  text: string;
  level: BannedLevel;
  updatable: boolean;
}

/** "批量添加": paste a list, pick one level for all of it, see what was added and what was already there. */
export function BannedWordsPaste({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<Values>();
  const text = Form.useWatch('text', form) ?? '';
  const level = Form.useWatch('level', form) ?? 'soft_warn';
  const count = parseWordList(text, level, true).length;
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: Values) => api.bannedWords.createMany(parseWordList(v.text, v.level, v.updatable)),
    onSuccess: () => onDone(),
  });
  return (
    <>
      <Button
        onClick={() => {
          save.reset();
          form.setFieldsValue({ text: '', level: 'soft_warn', updatable: true });
          setOpen(true);
        }}
      >
        {t('banned.paste')}
      </Button>
      <Modal
        open={open}
        title={t('banned.paste')}
        okText={t('banned.pasteSubmit', { count })}
        okButtonProps={{ disabled: count === 0 || count > MAX_WORDS }}
        cancelText={t('banned.close')}
        confirmLoading={save.isPending}
        onCancel={() => setOpen(false)}
        onOk={() => form.submit()}
        forceRender
      >
        {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
        {save.data && (
          <Alert
            type="success"
            showIcon
            role="status"
            style={{ marginBottom: 12 }}
            title={t('banned.pasteResult', { created: save.data.created, skipped: save.data.skipped.length })}
            description={save.data.skipped.length > 0 ? t('banned.pasteSkipped', { words: save.data.skipped.slice(0, 30).join('、') }) : undefined}
          />
        )}
        <Form<Values> form={form} name="banned-paste" layout="vertical" onFinish={(v) => save.mutate(v)}>
          <Form.Item label={t('banned.pasteLabel')} name="text" extra={t('banned.pasteHint', { max: MAX_WORDS })}>
            <Input.TextArea autoSize={{ minRows: 6, maxRows: 14 }} placeholder={'最佳=优秀\n根治\n国家级'} />
          </Form.Item>
          <Form.Item label={t('banned.level')} name="level">
            <Select options={LEVELS.map((l) => ({ value: l, label: <BannedLevelTag level={l} /> }))} />
          </Form.Item>
          <Form.Item label={t('banned.updatable')} name="updatable" valuePropName="checked">
            <Switch />
          </Form.Item>
          <Typography.Text type="secondary">{t('banned.pasteCount', { count })}</Typography.Text>
        </Form>
      </Modal>
    </>
  );
}
