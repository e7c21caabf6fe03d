import type { Migration } from 'kysely';
import * as initial from './20261122_0001_initial.js';

/**
 * Every migration, by name; names sort in the order they run. Add a new file and a line here;
 * never edit a migration that has been released.
 */
export const migrations: Record<string, Migration> = {
  '20261122_0001_initial': initial,
};
