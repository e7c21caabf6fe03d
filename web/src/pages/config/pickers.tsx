import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import { PICKER_PAGE, RemoteSelect, type RemoteSelectProps } from '../../components/RemoteSelect';

type PickerProps = Omit<RemoteSelectProps, 'searchKey' | 'search' | 'chosen'>;

const productOption = (p: { id: number; name: string }) => ({ value: p.id, label: p.name });

/** Products of the workspace whose name holds `q`, a picker's page of them. */
export async function searchProducts(q: string) {
  const page = await api.products.list({ page: 1, page_size: PICKER_PAGE, q: q || undefined });
  return { items: page.items.map(productOption), total: page.total };
}

/** The labels of chosen products, read one by one (they may lie beyond the picker's page). */
export async function productOptions(ids: number[]) {
  return (await Promise.all(ids.map((id) => api.products.get(id)))).map(productOption);
}

/** One product of the workspace, searched by name on the server however many there are. */
export function ProductSelect({ value, ...props }: PickerProps & { value?: number }) {
  return (
    <RemoteSelect
      {...props}
      value={value}
      searchKey={queryKeys.products.search}
      search={searchProducts}
      chosen={value === undefined ? undefined : { key: queryKeys.products.detail(value), load: () => productOptions([value]) }}
    />
  );
}

/** Banned words of the library, searched on the server; the chosen ones keep their labels. */
export function BannedWordSelect({ value, ...props }: PickerProps & { value?: number[] }) {
  const { t } = useTranslation();
  const label = (w: { id: number; word: string; level: string }) => ({ value: w.id, label: `${w.word} · ${t(`bannedLevel.${w.level}`)}` });
  const ids = value ?? [];
  return (
    <RemoteSelect
      {...props}
      mode="multiple"
      value={value}
      searchKey={queryKeys.bannedWords.search}
      search={async (q) => {
        const page = await api.bannedWords.list({ page: 1, page_size: PICKER_PAGE, q: q || undefined });
        return { items: page.items.map(label), total: page.total };
      }}
      chosen={ids.length === 0 ? undefined : { key: queryKeys.bannedWords.byIds(ids), load: async () => (await Promise.all(ids.map((id) => api.bannedWords.get(id)))).map(label) }}
    />
  );
}
