import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../api/endpoints';
import { useSession } from './session';
import { queryKeys } from '../api/queryKeys';

/**
 * First run: a fresh install logs the admin into the empty `Default` workspace, while the
 * sample products and the offline provider key wait in `Demo` (DEMO_DATA). While the current
 * workspace has neither products nor tasks and the user belongs to a workspace with the slug
 * `demo`, this says where it is and switches there in one click.
 */
export function DemoHint({ emptyHere }: { emptyHere: boolean }) {
  const { t } = useTranslation();
  const { user, adopt } = useSession();
  const workspaces = useQuery({ queryKey: queryKeys.workspaces(), queryFn: api.workspaces.list, enabled: emptyHere });
  const products = useQuery({ queryKey: queryKeys.products.list({ page: 1, page_size: 1 }), queryFn: () => api.products.list({ page: 1, page_size: 1 }), enabled: emptyHere });
  const demo = workspaces.data?.items.find((w) => w.slug === 'demo' && w.id !== user?.current_workspace_id);
  const switchWs = useMutation({ mutationFn: (id: number) => api.workspaces.switch(id), onSuccess: (data) => adopt(data.token) });
  if (!emptyHere || !demo || products.data?.total !== 0) return null;
  return (
    <Alert
      type="info"
      showIcon
      role="status"
      data-testid="demo-hint"
      style={{ marginBottom: 16 }}
      title={t('demoHint.title', { name: demo.name })}
      description={t('demoHint.body', { name: demo.name })}
      action={
        <Button type="primary" loading={switchWs.isPending} onClick={() => switchWs.mutate(demo.id)}>
          {t('demoHint.go', { name: demo.name })}
        </Button>
      }
    />
  );
}
