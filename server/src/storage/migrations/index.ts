import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import * as initial from './0001_initial.js';
import * as scans from './0002_scans.js';
import * as console from './0003_console.js';
import * as notifications from './0004_notifications.js';
import * as customRules from './0005_custom_rules.js';
import * as access from './0006_access.js';
import * as conductor from './0007_conductor.js';
import * as conductorAccess from './0008_conductor_access.js';
import * as signInAttempts from './0009_sign_in_attempts.js';
import * as creationOrder from './0010_creation_order.js';
import * as jobRequestIds from './0011_job_request_ids.js';
import * as environmentOrders from './0012_environment_orders.js';
import * as listOrders from './0013_list_orders.js';
import * as environmentVersions from './0014_environment_versions.js';
import * as findingsByType from './0015_findings_by_type.js';
import * as authFailures from './0016_auth_failures.js';
import * as jobTenants from './0017_job_tenants.js';
import * as ruleTestOutputs from './0018_rule_test_outputs.js';
import * as versionTriggers from './0019_version_triggers.js';
import * as invitationTokens from './0020_invitation_tokens.js';
import * as inviteDeliveryErrors from './0021_invite_delivery_errors.js';

/**
 * A migration as written here: told the dialect it runs on, by whoever opened the database (database.ts), where SQL
 * differs between SQLite and PostgreSQL. Most take no notice of it.
 */
interface DialectMigration {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
  down?(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}

/**
 * Every migration, in order. Names sort in the order they must run; never rename a released one, nor change the
 * schema it makes.
 */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_initial': initial,
  '0002_scans': scans,
  '0003_console': console,
  '0004_notifications': notifications,
  '0005_custom_rules': customRules,
  '0006_access': access,
  '0007_conductor': conductor,
  '0008_conductor_access': conductorAccess,
  '0009_sign_in_attempts': signInAttempts,
  '0010_creation_order': creationOrder,
  '0011_job_request_ids': jobRequestIds,
  '0012_environment_orders': environmentOrders,
  '0013_list_orders': listOrders,
  '0014_environment_versions': environmentVersions,
  '0015_findings_by_type': findingsByType,
  '0016_auth_failures': authFailures,
  '0017_job_tenants': jobTenants,
  '0018_rule_test_outputs': ruleTestOutputs,
  '0019_version_triggers': versionTriggers,
  '0020_invitation_tokens': invitationTokens,
  '0021_invite_delivery_errors': inviteDeliveryErrors,
};

/** Every migration, in order, as Kysely's migrator runs them (a MigrationProvider's answer) on `dialect`. */
export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(MIGRATIONS).map(([name, { up, down }]): [string, Migration] => [
      name,
      { up: (db) => up(db, dialect), ...(down && { down: (db) => down(db, dialect) }) },
    ]),
  );
}
