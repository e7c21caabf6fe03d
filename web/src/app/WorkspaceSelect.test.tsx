import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../i18n';
import type { WorkspaceItem } from '../api/types';
import { AppConfig } from './AppConfig';
import { WorkspaceSelect } from './WorkspaceSelect';

const demo = { id: 2, name: 'Demo', slug: 'demo', role: 'admin' } as WorkspaceItem;

function shown(workspaces: WorkspaceItem[] | undefined): string {
  const { container, unmount } = render(
    <AppConfig>
      <WorkspaceSelect currentId={2} workspaces={workspaces} loading={!workspaces} onSwitch={() => {}} />
    </AppConfig>,
  );
  const text = container.textContent ?? '';
  unmount();
  return text;
}

describe('the header workspace picker', () => {
  it('shows the workspace by name and role once the list is there', () => {
    expect(shown([demo])).toBe('Demo · 管理员');
  });

  it('shows no bare id while the list is loading again after a switch', () => {
    expect(shown(undefined)).not.toContain('2');
  });
});
