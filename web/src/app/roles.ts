import type { Role } from '../api/types';

const RANK: Record<Role, number> = { operator: 1, supervisor: 2, admin: 3 };

/** Mirrors the server's monotonic matrix (operator ⊂ supervisor ⊂ admin); the server still enforces it. */
export function roleAtLeast(role: Role | undefined, min: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[min];
}
