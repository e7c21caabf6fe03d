import { ImportOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, List, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { notifySuccess } from '../../app/notify';
import { QueryError } from '../../components/QueryError';
import { queryKeys } from '../../api/queryKeys';

/** Built-in word lists (advertising law, health claims) imported in one call; worded here by their name. */
export function PresetImport({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const presets = useQuery({ queryKey: queryKeys.bannedWords.presets(), queryFn: api.bannedWords.presets, enabled: open });
  const importPreset = useMutation({
    mutationFn: api.bannedWords.importPreset,
    onSuccess: (r) => {
      notifySuccess(t('banned.imported', { imported: r.imported, skipped: r.skipped }));
      onDone();
    },
  });
  return (
    <>
      <Button icon={<ImportOutlined aria-hidden />} onClick={() => setOpen(true)}>
        {t('banned.importPreset')}
      </Button>
      <Modal open={open} title={t('banned.importPreset')} footer={null} onCancel={() => setOpen(false)}>
        <QueryError error={presets.error} />
        <List
          loading={presets.isLoading}
          dataSource={presets.data?.items}
          renderItem={(p) => (
            <List.Item
              actions={[
                <Button key="import" type="primary" size="small" loading={importPreset.isPending && importPreset.variables === p.name} onClick={() => importPreset.mutate(p.name)}>
                  {t('banned.import')}
                </Button>,
              ]}
            >
              {/* Not List.Item.Meta: its title is an h4, out of order under the page's h1. */}
              <div>
                <Typography.Text strong>{`${t(`banned.presets.${p.name}.title`, { defaultValue: p.title })} · ${t('banned.wordCount', { count: p.word_count })}`}</Typography.Text>
                <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
                  {t(`banned.presets.${p.name}.description`, { defaultValue: p.description })}
                </Typography.Paragraph>
              </div>
            </List.Item>
          )}
        />
      </Modal>
    </>
  );
}
