import { useState } from 'react';

/** Page state for a server-paged antd Table. */
export function usePaging(pageSize = 20) {
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(pageSize);
  return {
    query: { page, page_size: size },
    reset: () => setPage(1),
    pagination: (total: number | undefined) => ({
      current: page,
      pageSize: size,
      total: total ?? 0,
      showSizeChanger: true,
      onChange: (p: number, s: number) => {
        setPage(s === size ? p : 1);
        setSize(s);
      },
    }),
  };
}
