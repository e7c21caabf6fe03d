import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { Select, Typography, type SelectProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** How many matches a picker shows at a time; typing narrows them. */
export const PICKER_PAGE = 20;

interface Option {
  value: number;
  label: string;
}

export interface RemoteSelectProps extends Omit<SelectProps<number | number[]>, 'options' | 'onSearch' | 'filterOption' | 'showSearch' | 'loading'> {
  /** The query key of the matches for what was typed. */
  searchKey: (q: string) => QueryKey;
  /** One page of matches for what was typed, and how many there are in all. */
  search: (q: string) => Promise<{ items: Option[]; total: number }>;
  /** The chosen values' labels, wherever they are in the list (a value outside the page would show as a bare id). */
  chosen?: { key: QueryKey; load: () => Promise<Option[]> };
}

/**
 * A picker over a list that can be longer than one page: the server searches what is typed
 * and says how many match, so nothing is silently left out of the choice.
 */
export function RemoteSelect({ searchKey, search, chosen, ...props }: RemoteSelectProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  // A request per pause in typing, not per key.
  useEffect(() => {
    const timer = setTimeout(() => setQ(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const matches = useQuery({ queryKey: searchKey(q), queryFn: () => search(q), placeholderData: keepPreviousData });
  const labels = useQuery({ queryKey: chosen?.key ?? ['none'], queryFn: () => chosen!.load(), enabled: Boolean(chosen) });
  const options = useMemo(() => {
    const byValue = new Map<number, Option>();
    for (const option of [...(labels.data ?? []), ...(matches.data?.items ?? [])]) byValue.set(option.value, option);
    return [...byValue.values()];
  }, [labels.data, matches.data]);
  const total = matches.data?.total ?? 0;
  const shown = matches.data?.items.length ?? 0;
  return (
    <Select
      {...props}
      showSearch={{ filterOption: false, onSearch: setTyped, searchValue: typed }}
      loading={matches.isFetching}
      options={options}
      onOpenChange={(open) => !open && setTyped('')}
      popupRender={(menu) => (
        <>
          {menu}
          {total > shown && (
            <Typography.Text type="secondary" style={{ display: 'block', padding: '4px 12px', fontSize: 12 }} data-testid="picker-more">
              {t('picker.more', { shown, total })}
            </Typography.Text>
          )}
        </>
      )}
    />
  );
}
