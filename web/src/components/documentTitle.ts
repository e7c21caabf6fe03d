import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The browser tab names the page (and the task) before the product, so a team with ten tabs
 * open can tell them apart: "任务 #12 通勤路上的一杯热水 · 内容生产平台".
 */
export function useDocumentTitle(page: string | undefined) {
  const { t } = useTranslation();
  const app = t('app.title');
  useEffect(() => {
    document.title = page ? `${page} · ${app}` : app;
  }, [page, app]);
}
