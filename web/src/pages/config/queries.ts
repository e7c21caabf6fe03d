import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/endpoints';

/** Pickers need every product / banned word: the largest page the API allows. */
export function useAllProducts() {
  return useQuery({ queryKey: ['products', 'all'], queryFn: () => api.products.list({ page: 1, page_size: 100 }) });
}

export function useAllBannedWords() {
  return useQuery({ queryKey: ['banned-words', 'all'], queryFn: () => api.bannedWords.list({ page: 1, page_size: 100 }) });
}
