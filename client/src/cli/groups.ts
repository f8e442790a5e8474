import type { Group } from './command.js';
import { accounts } from './commands/accounts.js';
import { dryRun } from './commands/dry-run.js';
import { environments } from './commands/environments.js';
import { events } from './commands/events.js';
import { metadata } from './commands/metadata.js';
import { processes } from './commands/processes.js';
import { rbac } from './commands/rbac.js';
import { rules } from './commands/rules.js';
import { scans } from './commands/scans.js';
import { validations } from './commands/validations.js';

/** The command table: every group, compliance API first, in the order help lists them. */
export const GROUPS: readonly Group[] = [environments, scans, events, rules, metadata, accounts, processes, dryRun, validations, rbac];
