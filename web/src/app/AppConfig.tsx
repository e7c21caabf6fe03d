import { ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** antd settings of the whole client (also used by the component tests). */
export function AppConfig({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      // Darker than antd's defaults so text and links keep a 4.5:1 contrast (WCAG AA).
      theme={{
        token: {
          colorPrimary: '#ad2102',
          colorLink: '#ad2102',
          colorError: '#cf1322',
          colorSuccess: '#237804',
          colorTextSecondary: 'rgba(0, 0, 0, 0.65)',
          colorTextDescription: 'rgba(0, 0, 0, 0.65)',
          colorTextTertiary: 'rgba(0, 0, 0, 0.62)',
          colorTextPlaceholder: 'rgba(0, 0, 0, 0.6)',
        },
      }}
      // No space between two-character Chinese button labels: "选用", not "选 用".
      button={{ autoInsertSpace: false }}
    >
      {children}
    </ConfigProvider>
  );
}
