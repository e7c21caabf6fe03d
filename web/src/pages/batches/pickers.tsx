import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import { RemoteSelect, type RemoteSelectProps } from '../../components/RemoteSelect';
import { productOptions, searchProducts } from '../config/pickers';

type PickerProps = Omit<RemoteSelectProps, 'searchKey' | 'search' | 'chosen' | 'mode' | 'value'>;

/** Several products of the workspace, searched by name on the server; the chosen ones keep their labels. */
export function ProductsSelect({ value, ...props }: PickerProps & { value?: number[] }) {
  const ids = value ?? [];
  return (
    <RemoteSelect
      {...props}
      mode="multiple"
      value={value}
      searchKey={queryKeys.products.search}
      search={searchProducts}
      chosen={ids.length === 0 ? undefined : { key: ['products', 'detail', 'many', ids], load: () => productOptions(ids) }}
    />
  );
}

/** Several active publishing accounts (a form control). */
export function AccountsSelect({ value, onChange, id, placeholder }: { value?: number[]; onChange?: (value: number[]) => void; id?: string; placeholder?: string }) {
  const { t } = useTranslation();
  const accounts = useQuery({ queryKey: queryKeys.accounts.list({ active: true }), queryFn: () => api.accounts.list({ active: true, page: 1, page_size: 100 }) });
  return (
    <Select
      id={id}
      mode="multiple"
      allowClear
      value={value}
      onChange={(v: number[]) => onChange?.(v)}
      placeholder={placeholder ?? t('batches.form.accountsPlaceholder')}
      loading={accounts.isLoading}
      optionFilterProp="label"
      options={(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.name }))}
    />
  );
}
