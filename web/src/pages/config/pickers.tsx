import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import { PICKER_PAGE, RemoteSelect, type RemoteSelectProps } from '../../components/RemoteSelect';

type PickerProps = Omit<RemoteSelectProps, 'searchKey' | 'search' | 'chosen'>;

/** One product of the workspace, searched by name on the server however many there are. */
export function ProductSelect({ value, ...props }: PickerProps & { value?: number }) {
  return (
    <RemoteSelect
      {...props}
      value={value}
      searchKey={queryKeys.products.search}
      search={async (q) => {
        const page = await api.products.list({ page: 1, page_size: PICKER_PAGE, q: q || undefined });
        return { items: page.items.map((p) => ({ value: p.id, label: p.name })), total: page.total };
      }}
      chosen={value === undefined ? undefined : { key: queryKeys.products.detail(value), load: async () => [await api.products.get(value)].map((p) => ({ value: p.id, label: p.name })) }}
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
