import { AppError } from '../errors.js';
import { characterCount } from '../text.js';
import { isSupportedType } from '../cloud/catalog.js';
import {
  ALL,
  ARN_PARTITION,
  GOV_REGIONS,
  PROVIDERS,
  STANDARD_REGIONS,
  familiesOf,
  parseRoleArn,
  regionsOf,
  usesRoles,
  type Provider,
} from '../cloud/providers.js';

/** Seed 000 §2.2 and §8. */
export const MIN_SCAN_INTERVAL = 600;
export const DEFAULT_SCAN_INTERVAL = 86_400;
/** Seed 000 §4 rule 2: only environments created after this date may change their regions. */
export const REGIONS_EDITABLE_SINCE = Date.UTC(2020, 3, 28) / 1000;

export function parseProvider(value: string, field = 'provider'): Provider {
  if ((PROVIDERS as readonly string[]).includes(value)) return value as Provider;
  throw AppError.invalid(field, `must be one of ${PROVIDERS.join(', ')}`);
}

/** Accepts an integer or a string of digits (seed 000 §2.2) and answers an integer. */
export function parseScanInterval(value: number | string): number {
  const field = 'scan_interval';
  let seconds: number;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw AppError.invalid(field, 'must be a whole number of seconds');
    seconds = value;
  } else if (typeof value === 'string' && /^[0-9]+$/.test(value)) {
    seconds = Number(value);
  } else {
    throw AppError.invalid(field, 'must be an integer or a string of digits');
  }
  if (seconds < MIN_SCAN_INTERVAL) throw AppError.invalid(field, `must be at least ${MIN_SCAN_INTERVAL} seconds`);
  if (!Number.isSafeInteger(seconds)) throw AppError.invalid(field, 'is too large');
  return seconds;
}

/** Accepts a boolean or the strings `true` / `false` (seed 000 §2.2). */
export function parseScheduleEnabled(value: boolean | string): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw AppError.invalid('scan_schedule_enabled', "must be true, false, 'true' or 'false'");
}

export function checkName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw AppError.invalid('name', 'must not be blank');
  if (characterCount(name) > 255) throw AppError.invalid('name', 'must be at most 255 characters');
  return name;
}

function checkUnique(field: string, values: readonly string[]): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw AppError.invalid(field, `lists '${value}' twice`);
    seen.add(value);
  }
}

/** `*` stands for "all" and must then be the only entry. */
function checkWildcardAlone(field: string, values: readonly string[]): void {
  if (values.includes(ALL) && values.length > 1) {
    throw AppError.invalid(field, "'*' stands for all and must be the only entry");
  }
}

export function checkRegions(provider: 'provider_a' | 'provider_a_gov', field: string, regions: readonly string[]): string[] {
  if (regions.length === 0) throw AppError.invalid(field, 'must name at least one region, or *');
  checkUnique(field, regions);
  checkWildcardAlone(field, regions);
  const allowed = regionsOf(provider);
  for (const region of regions) {
    if (region === ALL || allowed.includes(region)) continue;
    throw AppError.invalid(field, regionMismatch(provider, region));
  }
  return [...regions];
}

function regionMismatch(provider: 'provider_a' | 'provider_a_gov', region: string): string {
  if (provider === 'provider_a' && (GOV_REGIONS as readonly string[]).includes(region)) {
    return `'${region}' is a government region; a provider_a environment cannot use government regions (use provider_a_gov)`;
  }
  if (provider === 'provider_a_gov' && (STANDARD_REGIONS as readonly string[]).includes(region)) {
    return `'${region}' is a standard region; a provider_a_gov environment can use only ${GOV_REGIONS.join(', ')}`;
  }
  return `'${region}' is not a region of ${provider}`;
}

export function checkRoleArn(provider: 'provider_a' | 'provider_a_gov', field: string, arn: string): string {
  const parsed = parseRoleArn(arn);
  if (!parsed) throw AppError.invalid(field, 'must look like arn:<partition>:iam::<12-digit account>:role/<name>');
  const partition = ARN_PARTITION[provider];
  if (parsed.partition !== partition) {
    throw AppError.invalid(field, `must use the '${partition}' partition for ${provider}, not '${parsed.partition}'`);
  }
  return arn;
}

export function checkFamilies(provider: Provider, families: readonly string[]): string[] {
  checkUnique('compliance_families', families);
  const allowed = familiesOf(provider);
  for (const family of families) {
    if (!allowed.includes(family)) {
      throw AppError.invalid('compliance_families', `'${family}' is not a family of ${provider}; use ${allowed.join(', ')}`);
    }
  }
  return [...families];
}

export function checkResourceTypes(provider: Provider, field: string, types: readonly string[]): string[] {
  checkUnique(field, types);
  for (const type of types) {
    if (!isSupportedType(provider, type)) {
      throw AppError.invalid(field, `'${type}' is not a supported resource type of ${provider} (see GET /metadata/${provider}/resource_types)`);
    }
  }
  return [...types];
}

/** What can be corrected must also be surveyed, or the service would never see its drift. */
export function checkRemediateTypes(provider: Provider, types: readonly string[], surveyed: readonly string[]): string[] {
  const checked = checkResourceTypes(provider, 'remediate_resource_types', types);
  if (checked.length > 0 && !usesRoles(provider)) {
    throw AppError.invalid('remediate_resource_types', 'remediation is available only for provider_a and provider_a_gov');
  }
  for (const type of checked) {
    if (!surveyed.includes(type)) {
      throw AppError.invalid('remediate_resource_types', `'${type}' is not in survey_resource_types`);
    }
  }
  return checked;
}

export function checkResourceGroups(field: string, groups: readonly string[]): string[] {
  if (groups.length === 0) throw AppError.invalid(field, 'must name at least one resource group, or *');
  checkUnique(field, groups);
  checkWildcardAlone(field, groups);
  for (const group of groups) {
    if (group.length === 0 || characterCount(group) > 90) throw AppError.invalid(field, 'entries must be 1 to 90 characters long');
  }
  return [...groups];
}

/** provider_options must hold exactly one key, the environment's provider. */
export function checkOptionKeys(provider: Provider, keys: readonly string[]): void {
  const other = keys.find((k) => k !== provider);
  if (other !== undefined) {
    if (usesRoles(provider) && usesRoles(other as Provider)) {
      throw AppError.invalid(
        `provider_options.${other}`,
        `a ${provider} environment cannot move between standard and government regions; use provider_options.${provider}`,
      );
    }
    throw AppError.invalid(`provider_options.${other}`, `does not match provider '${provider}'; use provider_options.${provider}`);
  }
}
