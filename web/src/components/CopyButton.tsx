import { CopyOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { notifyFailure, notifySuccess } from '../app/notify';
import { copyText } from './clipboard';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation();
  return (
    <Button
      size="small"
      icon={<CopyOutlined aria-hidden />}
      onClick={() =>
        copyText(text).then(
          () => notifySuccess(t('copy.done', { what: label })),
          () => notifyFailure(t('copy.failed')),
        )
      }
    >
      {label}
    </Button>
  );
}
