import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/endpoints';

/** Pickers need every product / banned word: the largest page the API allows. */
export function useAllProducts() {
  return useQuery({ queryKey: ['products', 'all'], queryFn: () => api.products.list({ page: 1, page_size: 100 }) });
}

/** Every word of the library (for highlighting and pickers): all pages, 100 at a time. */
export function useAllBannedWords() {
  return useQuery({
    queryKey: ['banned-words', 'all'],
    queryFn: async () => {
      const first = await api.bannedWords.list({ page: 1, page_size: 100 });
      const items = [...first.items];
      for (let page = 2; items.length < first.total && page <= 50; page++) {
        items.push(...(await api.bannedWords.list({ page, page_size: 100 })).items);
      }
      return { ...first, items };
    },
  });
}
