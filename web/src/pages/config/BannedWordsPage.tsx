import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal, Popconfirm, Select, Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { BannedLevel, BannedWord, BannedWordBody } from '../../api/types';
import { useCan } from '../../app/abilities';
import { QueryError } from '../../components/QueryError';
import { BannedLevelTag } from '../../components/tags';
import { usePaging } from '../../components/usePaging';
import { BannedWordsPaste } from './BannedWordsPaste';
import { PresetImport } from './PresetImport';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';

const LEVELS: BannedLevel[] = ['hard_block', 'soft_warn', 'auto_fix'];

export default function BannedWordsPage() {
  const { t } = useTranslation();
  // Operators read the library; supervisors and admins change it (the server's policy says so).
  const canWrite = useCan()('banned_words.write');
  const paging = usePaging();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<BannedWord | 'new'>();
  const [form] = Form.useForm<BannedWordBody>();
  const [q, setQ] = useState('');
  const [level, setLevel] = useState<BannedLevel>();
  const [selected, setSelected] = useState<number[]>([]);
  const listQuery = { ...paging.query, q: q || undefined, level };
  const words = useQuery({ queryKey: queryKeys.bannedWords.list(listQuery), queryFn: () => api.bannedWords.list(listQuery), placeholderData: keepPreviousData });
  const reload = () => refresh.bannedWords(queryClient);
  const removeSelected = useMutation({
    meta: { inlineError: true },
    mutationFn: () => api.bannedWords.removeMany(selected),
    onSuccess: () => {
      setSelected([]);
      void reload();
    },
  });
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: BannedWordBody) => {
      const body = { ...v, word: v.word.trim(), replacement: v.replacement?.trim() || null };
      return editing === 'new' || !editing ? api.bannedWords.create(body) : api.bannedWords.update(editing.id, body);
    },
    onSuccess: () => {
      setEditing(undefined);
      void reload();
    },
  });
  const remove = useMutation({ mutationFn: api.bannedWords.remove, onSuccess: reload });
  const open = (w: BannedWord | 'new') => {
    save.reset();
    setEditing(w);
    form.setFieldsValue(w === 'new' ? { word: '', level: 'soft_warn', replacement: '', updatable: true } : { ...w, replacement: w.replacement ?? '' });
  };
  // A locked word (updatable: false) is an admin's: the word itself says what the user may do to it.
  const lockedFor = (w: BannedWord) => !w.allowed_actions.includes('update');

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>
          {t('banned.title')}
        </PageTitle>
        {canWrite && (
          <Space wrap>
            <PresetImport onDone={reload} />
            <BannedWordsPaste onDone={reload} />
            <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => open('new')}>
              {t('banned.add')}
            </Button>
          </Space>
        )}
      </Space>
      <Typography.Paragraph type="secondary">{t('banned.baselineNote')}</Typography.Paragraph>
      {!canWrite && <Alert type="info" showIcon title={t('banned.readOnly')} style={{ marginBottom: 16 }} />}
      <Space wrap style={{ marginBottom: 16 }}>
        <Input.Search
          aria-label={t('banned.search')}
          placeholder={t('banned.search')}
          allowClear
          maxLength={100}
          style={{ width: 220 }}
          onSearch={(v) => {
            setQ(v.trim());
            setSelected([]);
            paging.reset();
          }}
        />
        <Select
          aria-label={t('banned.filterLevel')}
          placeholder={t('banned.filterLevel')}
          allowClear
          style={{ width: 160 }}
          value={level}
          onChange={(v: BannedLevel | undefined) => {
            setLevel(v);
            setSelected([]);
            paging.reset();
          }}
          options={LEVELS.map((l) => ({ value: l, label: t(`bannedLevel.${l}`) }))}
        />
        {canWrite && (
          <Popconfirm
            title={t('banned.deleteSelectedConfirm', { count: selected.length })}
            okText={t('form.ok')}
            cancelText={t('form.cancel')}
            onConfirm={() => removeSelected.mutate()}
            disabled={selected.length === 0}
          >
            <Button danger disabled={selected.length === 0} loading={removeSelected.isPending}>
              {t('banned.deleteSelected', { count: selected.length })}
            </Button>
          </Popconfirm>
        )}
      </Space>
      {removeSelected.error && <Alert type="error" showIcon role="alert" title={errorMessage(removeSelected.error)} style={{ marginBottom: 12 }} />}
      <QueryError error={words.error} />
      <ResponsiveTable<BannedWord>
        rowKey="id"
        rowSelection={
          canWrite
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys.map(Number)),
                // Locked words change by admins only: others cannot pick them for deletion.
                getCheckboxProps: (row) => ({ disabled: lockedFor(row), 'aria-label': t('banned.selectWord', { word: row.word }) }),
              }
            : undefined
        }
        loading={words.isFetching}
        dataSource={words.data?.items}
        pagination={paging.pagination(words.data?.total)}
        locale={{ emptyText: t('banned.empty') }}
        columns={[
          { title: t('banned.word'), dataIndex: 'word' },
          { title: t('banned.level'), dataIndex: 'level', render: (l: BannedLevel) => <BannedLevelTag level={l} /> },
          { title: t('banned.replacement'), dataIndex: 'replacement', render: (v: string | null) => v ?? '—' },
          { title: t('banned.updatable'), dataIndex: 'updatable', render: (v: boolean) => (v ? t('form.yes') : t('form.no')) },
          { title: t('banned.source'), dataIndex: 'preset', render: (p: string | null) => (p ? t(`banned.presets.${p}.title`, { defaultValue: p }) : t('banned.ownWord')) },
          ...(canWrite
            ? [
                {
                  title: t('form.actions'),
                  key: 'actions',
                  render: (_: unknown, row: BannedWord) => (
                    <Space>
                      <Button type="link" size="small" disabled={lockedFor(row)} onClick={() => open(row)}>
                        {t('form.edit')}
                      </Button>
                      <Popconfirm title={t('banned.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(row.id)}>
                        <Button type="link" size="small" danger disabled={lockedFor(row)}>
                          {t('form.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={editing === 'new' ? t('banned.add') : t('banned.edit')}
        okText={t('form.save')}
        cancelText={t('form.cancel')}
        confirmLoading={save.isPending}
        onCancel={() => setEditing(undefined)}
        onOk={() => form.submit()}
        forceRender
      >
        {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
        <Form<BannedWordBody> form={form} layout="vertical" onFinish={(v) => save.mutate(v)}>
          <Form.Item label={t('banned.word')} name="word" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input />
          </Form.Item>
          <Form.Item label={t('banned.level')} name="level" rules={[{ required: true }]}>
            <Select options={LEVELS.map((l) => ({ value: l, label: <BannedLevelTag level={l} /> }))} />
          </Form.Item>
          <Form.Item label={t('banned.replacement')} name="replacement" extra={t('banned.replacementHint')}>
            <Input />
          </Form.Item>
          <Form.Item label={t('banned.updatable')} name="updatable" valuePropName="checked">
            <Switch />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
