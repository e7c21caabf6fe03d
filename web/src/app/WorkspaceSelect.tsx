import { Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkspaceItem } from '../api/types';

interface Props {
  currentId: number | undefined;
  /** The user's workspaces; undefined while the list loads (again, after a switch clears the cache). */
  workspaces: WorkspaceItem[] | undefined;
  loading: boolean;
  onSwitch: (id: number) => void;
}

/** The header's workspace picker: names and the user's role there, never a bare id while the names load. */
export function WorkspaceSelect({ currentId, workspaces, loading, onSwitch }: Props) {
  const { t } = useTranslation();
  return (
    <Select
      aria-label={t('header.workspace')}
      style={{ minWidth: 180, maxWidth: '100%' }}
      loading={loading}
      value={workspaces ? currentId : undefined}
      onChange={onSwitch}
      options={(workspaces ?? []).map((w) => ({ value: w.id, label: `${w.name} · ${t(`role.${w.role}`)}` }))}
    />
  );
}
