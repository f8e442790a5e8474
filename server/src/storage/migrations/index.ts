import type { Migration } from 'kysely';
import * as initial from './0001_initial.js';

/** Every migration, in order. Names sort in the order they must run; never rename or edit a released one. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};
