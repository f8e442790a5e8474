import { isSupportedType } from '../cloud/catalog.js';
import { familiesOf, type Provider } from '../cloud/providers.js';
import { AppError } from '../errors.js';
import type { Severity } from '../rules/catalog/rules.js';
import { compileRule, RuleCompileError, type CompiledRule } from '../rules/engine.js';
import { characterCount, firstCharacters } from '../text.js';
import { CUSTOM_RULE_PROVIDERS, type CustomRuleProvider } from './types.js';

export const SEVERITIES: readonly Severity[] = ['Informational', 'Low', 'Medium', 'High', 'Critical'];
export const DEFAULT_SEVERITY: Severity = 'Medium';
export const MAX_NAME_LENGTH = 255;
/** Control ids (`<FAMILY> CUSTOM <name>`) must fit the 255 characters the results allow. */
const CONTROL_NAME_LENGTH = 200;

export const PROVIDER_OF_ENVIRONMENT: Record<Provider, CustomRuleProvider> = {
  provider_a: 'PROVIDER_A',
  provider_a_gov: 'PROVIDER_A_GOV',
  provider_b: 'PROVIDER_B',
};

const ENVIRONMENT_PROVIDER: Record<CustomRuleProvider, Provider> = {
  PROVIDER_A: 'provider_a',
  PROVIDER_A_GOV: 'provider_a_gov',
  PROVIDER_B: 'provider_b',
};

/** The providers whose resource types carry each prefix (product.md §3). */
const PROVIDERS_OF_PREFIX: Record<string, CustomRuleProvider[]> = {
  PROVA: ['PROVIDER_A', 'PROVIDER_A_GOV'],
  PROVB: ['PROVIDER_B'],
};

/** The control a custom rule is reported under in one family. */
export const controlId = (family: string, ruleName: string): string => `${family} CUSTOM ${firstCharacters(ruleName, CONTROL_NAME_LENGTH)}`;

export function checkName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw AppError.invalid('name', 'must not be blank');
  if (characterCount(name) > MAX_NAME_LENGTH) throw AppError.invalid('name', `must be at most ${MAX_NAME_LENGTH} characters`);
  return name;
}

export function checkSeverity(value: string): Severity {
  if ((SEVERITIES as readonly string[]).includes(value)) return value as Severity;
  throw AppError.invalid('severity', `must be one of ${SEVERITIES.join(', ')}`);
}

function checkProvider(field: string, value: string): CustomRuleProvider {
  if ((CUSTOM_RULE_PROVIDERS as readonly string[]).includes(value)) return value as CustomRuleProvider;
  throw AppError.invalid(field, `must be one of ${CUSTOM_RULE_PROVIDERS.join(', ')}`);
}

function providersOfType(resourceType: string): CustomRuleProvider[] {
  const providers = PROVIDERS_OF_PREFIX[resourceType.split('.')[0]!];
  if (!providers) throw AppError.invalid('resource_type', `'${resourceType}' must start with PROVA. or PROVB.`);
  return providers;
}

/**
 * The providers of a rule: those sent (`providers`, or the deprecated single `provider`), else every provider of
 * the resource type's prefix. Each must match the prefix and support the type.
 */
export function resolveProviders(resourceType: string, providers: readonly string[] | undefined, provider?: string): CustomRuleProvider[] {
  const ofType = providersOfType(resourceType);
  if (provider !== undefined) checkProvider('provider', provider);
  if (providers !== undefined && provider !== undefined && !providers.includes(provider)) {
    throw AppError.invalid('provider', `'${provider}' must be one of providers (${providers.join(', ')}); send providers only`);
  }
  const field = providers !== undefined ? 'providers' : 'provider';
  const chosen = (providers ?? (provider !== undefined ? [provider] : ofType)).map((p) => checkProvider(field, p));
  if (chosen.length === 0) throw AppError.invalid('providers', 'must name at least one provider');
  if (new Set(chosen).size !== chosen.length) throw AppError.invalid('providers', 'lists a provider twice');
  for (const p of chosen) {
    if (!ofType.includes(p)) {
      throw AppError.invalid(field, `${p} does not match resource type ${resourceType} (its providers are ${ofType.join(', ')})`);
    }
    const environmentProvider = ENVIRONMENT_PROVIDER[p];
    if (!isSupportedType(environmentProvider, resourceType)) {
      throw AppError.invalid(
        'resource_type',
        `'${resourceType}' is not a supported resource type of ${environmentProvider} (see GET /metadata/${environmentProvider}/resource_types)`,
      );
    }
  }
  return chosen;
}

/** Families must be valid for every provider of the rule, since the rule joins scans of each. */
export function checkFamilies(families: readonly string[], providers: readonly CustomRuleProvider[]): string[] {
  if (new Set(families).size !== families.length) throw AppError.invalid('families', 'lists a family twice');
  for (const family of families) {
    for (const provider of providers) {
      const allowed = familiesOf(ENVIRONMENT_PROVIDER[provider]);
      if (!allowed.includes(family)) {
        throw AppError.invalid('families', `'${family}' is not a family of ${provider}; use ${allowed.join(', ')}`);
      }
    }
  }
  return [...families];
}

/** Whether a stored rule can still run: its type is still supported by its providers (the catalog may shrink). */
export const typeStillSupported = (resourceType: string, providers: readonly CustomRuleProvider[]): boolean =>
  providers.every((p) => isSupportedType(ENVIRONMENT_PROVIDER[p], resourceType));

/** The engine appends the position to its message; the API puts it first, as `line:column: message`. */
const withoutPosition = (message: string): string => message.replace(/ \(at line \d+, column \d+\)$/, '');

/** Compiles a rule's text, or refuses it with the compiler's message and position. */
export function compileText(field: string, text: string): CompiledRule {
  try {
    return compileRule(text);
  } catch (error) {
    if (error instanceof RuleCompileError) {
      throw AppError.invalid(field, `${error.line}:${error.column}: ${withoutPosition(error.message)}`);
    }
    throw error;
  }
}
