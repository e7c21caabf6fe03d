import { describe, expect, it } from 'vitest';
import { can, canOn, recordActions, scopeAllows, workspaceActions, type Actor } from '../../src/policy/policy.js';

const operator: Actor = { userId: 1, role: 'operator' };
const supervisor: Actor = { userId: 2, role: 'supervisor' };
const admin: Actor = { userId: 3, role: 'admin' };

describe('the access policy', () => {
  it('gives each role the workspace actions of contract-decisions §3, §7, §10, §11 and §12, written out here', () => {
    expect(workspaceActions(operator).sort()).toEqual(['api_keys.create', 'posts.write', 'products.write', 'tasks.write']);
    expect(workspaceActions(supervisor).sort()).toEqual([
      'accounts.manage',
      'api_keys.create',
      'audit.read',
      'banned_words.write',
      'generation_routing.write',
      'posts.force',
      'posts.write',
      'products.write',
      'review.decide',
      'tasks.write',
    ]);
    expect(workspaceActions(admin).sort()).toEqual([
      'accounts.manage',
      'api_keys.create',
      'audit.read',
      'banned_words.write',
      'generation_routing.write',
      'posts.force',
      'posts.write',
      'products.write',
      'review.decide',
      'tasks.write',
      'users.manage',
      'webhooks.manage',
      'workspaces.manage',
    ]);
    expect(can(operator, 'review.decide')).toBe(false);
    expect(can(supervisor, 'users.manage')).toBe(false);
  });

  it('lets operators change, test and delete only the connections they added; supervisors and admins any', () => {
    const mine = { created_by: operator.userId };
    const theirs = { created_by: admin.userId };
    expect(recordActions(operator, 'api_key', mine).sort()).toEqual(['delete', 'test', 'update']);
    expect(recordActions(operator, 'api_key', theirs)).toEqual([]);
    expect(recordActions(supervisor, 'api_key', theirs).sort()).toEqual(['delete', 'test', 'update']);
    expect(canOn(admin, 'api_key', 'delete', mine)).toBe(true);
  });

  it('leaves a locked banned word (updatable: false) to admins, other words to supervisors and admins', () => {
    const open = { updatable: true };
    const locked = { updatable: false };
    expect(recordActions(operator, 'banned_word', open)).toEqual([]);
    expect(recordActions(supervisor, 'banned_word', open).sort()).toEqual(['delete', 'update']);
    expect(recordActions(supervisor, 'banned_word', locked)).toEqual([]);
    expect(recordActions(admin, 'banned_word', locked).sort()).toEqual(['delete', 'update']);
  });

  it('narrows a role to a personal access token\'s scopes (§13), never widens it', () => {
    const producer: Actor = { ...admin, scopes: ['read', 'produce'] };
    expect(workspaceActions(producer).sort()).toEqual(['posts.write', 'products.write', 'tasks.write']);
    expect(can({ ...admin, scopes: ['review'] }, 'review.decide')).toBe(true);
    expect(can({ ...operator, scopes: ['review'] }, 'review.decide')).toBe(false);
    expect(workspaceActions({ ...supervisor, scopes: ['admin'] }).sort()).toEqual(['accounts.manage', 'api_keys.create', 'banned_words.write', 'generation_routing.write']);
    // Record rules hold the scope too: an operator's own connection needs `admin`.
    expect(recordActions({ ...operator, scopes: ['read', 'produce'] }, 'api_key', { created_by: operator.userId })).toEqual([]);
    expect(recordActions({ ...operator, scopes: ['admin'] }, 'api_key', { created_by: operator.userId }).sort()).toEqual(['delete', 'test', 'update']);
    // A session (no scopes) has the whole role; a token never has what only a session does.
    expect(scopeAllows(admin, 'session')).toBe(true);
    expect(scopeAllows({ ...admin, scopes: ['read', 'produce', 'review', 'admin'] }, 'session')).toBe(false);
    expect(scopeAllows({ ...admin, scopes: [] }, 'any')).toBe(true);
  });
});
