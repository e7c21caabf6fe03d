import { Typography } from 'antd';
import type { CSSProperties, ReactNode } from 'react';
import { useDocumentTitle } from './documentTitle';

/**
 * The one `h1` of a console page; it also names the browser tab (`tab`, or the title itself
 * when that is plain text).
 */
export function PageTitle({ children, tab, style }: { children: ReactNode; tab?: string; style?: CSSProperties }) {
  useDocumentTitle(tab ?? (typeof children === 'string' ? children : undefined));
  return (
    <Typography.Title level={1} style={{ fontSize: 22, lineHeight: 1.4, margin: 0, ...style }}>
      {children}
    </Typography.Title>
  );
}
