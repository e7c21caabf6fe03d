import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';

/**
 * The account notes are meant for (contract-decisions §11): generation writes in its persona.
 * Active accounts only; empty means no account in particular. A form control (value/onChange).
 */
export function AccountSelect({ value, onChange, id }: { value?: number; onChange?: (value: number | undefined) => void; id?: string }) {
  const { t } = useTranslation();
  const accounts = useQuery({ queryKey: queryKeys.accounts.list({ active: true }), queryFn: () => api.accounts.list({ active: true, page: 1, page_size: 100 }) });
  return (
    <Select
      id={id}
      allowClear
      value={value}
      onChange={(v: number | undefined) => onChange?.(v)}
      placeholder={t('publishing.forAccount.none')}
      loading={accounts.isLoading}
      options={(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.persona ? `${a.name} · ${a.persona.slice(0, 24)}${a.persona.length > 24 ? '…' : ''}` : a.name }))}
      style={{ maxWidth: 420 }}
    />
  );
}
