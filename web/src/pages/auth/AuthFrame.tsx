import { Radio } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../../components/documentTitle';
import { setLang, type Lang } from '../../i18n';

/**
 * The frame of the login and password pages. Plain elements rather than Card, Typography and
 * Select keep the login page's first download small (each pulls in much more than it shows).
 */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t, i18n } = useTranslation();
  useDocumentTitle(title);
  return (
    <main style={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#f5f5f5' }}>
      <div style={{ width: 380, maxWidth: '92vw', background: '#fff', borderRadius: 8, padding: 32, boxShadow: '0 1px 4px rgba(0,0,0,0.08)' }}>
        <div style={{ color: '#595959', marginBottom: 4 }}>{t('app.title')}</div>
        <h1 style={{ fontSize: 24, margin: '0 0 24px' }}>{title}</h1>
        {children}
        <div style={{ marginTop: 24, textAlign: 'right' }}>
          <Radio.Group
            aria-label={t('header.language')}
            size="small"
            optionType="button"
            value={i18n.language as Lang}
            onChange={(e) => setLang(e.target.value as Lang)}
            options={[
              { value: 'zh-CN', label: '中文' },
              { value: 'en', label: 'English' },
            ]}
          />
        </div>
      </div>
    </main>
  );
}
