import { AppError } from './errors.js';

/**
 * How many records of each kind one organization may hold (processes: one conductor account), so that no tenant
 * fills the database or the scans and deliveries every tenant shares (one organization once made 2 000 environments
 * in 4.5 s). Each is a setting (the variables of QUOTA_SETTINGS); a create past one is refused and writes nothing.
 */
export interface Quotas {
  environments: number;
  customRules: number;
  /** Characters of rule text, summed over the organization's custom rules. */
  customRuleText: number;
  notifications: number;
  groups: number;
  apiClients: number;
  processesPerAccount: number;
}

export type QuotaName = keyof Quotas;

/** Well above the demo data and what any client was seen to need, far below what hurts the shared work. */
export const DEFAULT_QUOTAS: Readonly<Quotas> = Object.freeze({
  environments: 500,
  customRules: 200,
  // Every scan compiles and runs the enabled rules' text: 2 MiB is 32 rules at the spec's 65 536 characters each, or
  // all 200 at over 10 000, where the demo's rules are a few hundred.
  customRuleText: 2_097_152,
  notifications: 100,
  groups: 100,
  apiClients: 50,
  processesPerAccount: 200,
});

/** The variable that sets each quota, which a refusal names so that an operator knows what to raise. */
export const QUOTA_SETTINGS: Readonly<Record<QuotaName, { variable: string; one: string; many: string }>> = Object.freeze({
  environments: { variable: 'MAX_ENVIRONMENTS_PER_ORG', one: 'environment', many: 'environments' },
  customRules: { variable: 'MAX_CUSTOM_RULES_PER_ORG', one: 'custom rule', many: 'custom rules' },
  customRuleText: { variable: 'MAX_CUSTOM_RULE_TEXT_PER_ORG', one: 'character of rule text', many: 'characters of rule text' },
  notifications: { variable: 'MAX_NOTIFICATIONS_PER_ORG', one: 'notification', many: 'notifications' },
  groups: { variable: 'MAX_GROUPS_PER_ORG', one: 'group', many: 'groups' },
  apiClients: { variable: 'MAX_API_CLIENTS_PER_ORG', one: 'API client', many: 'API clients' },
  processesPerAccount: { variable: 'MAX_PROCESSES_PER_ACCOUNT', one: 'process', many: 'processes' },
});

/** The quotas given, the defaults for the rest. */
export const quotasOf = (given: Partial<Quotas> = {}): Readonly<Quotas> => Object.freeze({ ...DEFAULT_QUOTAS, ...given });

/**
 * What a repository's counted insert asks the domain, inside the insert's transaction and while the owner's other
 * counted inserts wait: `held` is how many the owner has now. Throwing refuses, and the insert writes nothing.
 */
export type Admission = (held: number) => void;

/**
 * What a repository's write of a sized record asks the domain, inside the write's transaction, once the write is
 * made and while the owner's other counted writes wait: `after` is what the owner's records measure with it, `before`
 * what they measured without it. Throwing refuses, and the write is undone.
 */
export type SizeAdmission = (after: number, before: number) => void;

/** What a refusal says: `this organization has 500 environments, the most it may have (MAX_ENVIRONMENTS_PER_ORG=500)`. */
export function quotaMessage(name: QuotaName, limit: number, owner: string, held: number): string {
  const { variable, one, many } = QUOTA_SETTINGS[name];
  const most = held > limit ? `more than the ${limit} it may have` : 'the most it may have';
  return `${owner} has ${held} ${held === 1 ? one : many}, ${most} (${variable}=${limit})`;
}

/**
 * Admits a create while `owner` (as the message names it: `this organization`, `account 'prod-main'`) holds fewer
 * than `limit`; refuses it as a conflict with the owner's state otherwise, with `refusal` building the error when the
 * API wants more than a message (the conductor's `errors`).
 */
export function upTo(
  name: QuotaName,
  limit: number,
  owner: string,
  refusal: (message: string) => AppError = (message) => new AppError('conflict', message),
): Admission {
  return (held) => {
    if (held >= limit) throw refusal(quotaMessage(name, limit, owner, held));
  };
}

/**
 * Admits a write while what `owner`'s records measure stays within `limit`; a write that grows the measure past it
 * is refused as `upTo` refuses, and one that does not grow it is admitted even past the limit (a limit lowered since),
 * so that an owner over it can always shrink back.
 */
export function atMost(name: QuotaName, limit: number, owner: string): SizeAdmission {
  return (after, before) => {
    if (after <= limit || after <= before) return;
    const { variable, many } = QUOTA_SETTINGS[name];
    throw new AppError('conflict', `${owner} would have ${after} ${many}, more than the ${limit} it may have (${variable}=${limit})`);
  };
}
