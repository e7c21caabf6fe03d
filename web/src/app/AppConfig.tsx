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
      theme={{ token: { colorPrimary: '#d4380d' } }}
      // No space between two-character Chinese button labels: "选用", not "选 用".
      button={{ autoInsertSpace: false }}
    >
      {children}
    </ConfigProvider>
  );
}
