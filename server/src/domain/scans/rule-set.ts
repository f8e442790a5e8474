import { familiesOf, type Provider } from '../cloud/providers.js';
import { CONTROLS, type Control } from '../rules/catalog/controls.js';
import { BUILTIN_RULES, type BuiltinRule } from '../rules/catalog/rules.js';
import { compileRule, type CompiledRule } from '../rules/engine.js';

/** A rule as one scan evaluates it: compiled, with the controls it serves in the scan's families. */
export interface ActiveRule {
  id: string;
  title: string;
  severity: BuiltinRule['severity'];
  message: string;
  resourceTypes: readonly string[];
  compiled: CompiledRule;
  controls: Control[];
  families: string[];
}

/** What results say about a rule; kept with each scan's results, so they describe the rule as it was evaluated. */
export type RuleInfo = Omit<ActiveRule, 'compiled'>;

export const ruleInfo = ({ compiled: _compiled, ...info }: ActiveRule): RuleInfo => info;

const controlsById = new Map(CONTROLS.map((c) => [c.id, c]));
// Built-in rules compile once per process; a rule that does not compile is a defect caught by the catalog tests.
const compiled = new Map(BUILTIN_RULES.map((rule) => [rule.id, compileRule(rule.expression)]));

/** provider_a_gov runs provider_a's rules: same resource types, other regions. */
const ruleProvider = (provider: Provider): BuiltinRule['provider'] => (provider === 'provider_b' ? 'provider_b' : 'provider_a');

/** The families a scan evaluates: the environment's, or every family of its provider when it names none. */
export const scanFamilies = (provider: Provider, families: readonly string[]): string[] =>
  families.length > 0 ? [...families] : [...familiesOf(provider)];

/** The built-in rules that serve at least one control of `families`, for the provider. */
export function rulesForScan(provider: Provider, families: readonly string[]): ActiveRule[] {
  const wanted = new Set(families);
  const active: ActiveRule[] = [];
  for (const rule of BUILTIN_RULES) {
    if (rule.provider !== ruleProvider(provider)) continue;
    const controls = rule.controls.map((id) => controlsById.get(id)!).filter((c) => c && wanted.has(c.family));
    if (controls.length === 0) continue;
    active.push({
      id: rule.id,
      title: rule.title,
      severity: rule.severity,
      message: rule.message,
      resourceTypes: rule.resourceTypes,
      compiled: compiled.get(rule.id)!,
      controls,
      families: [...new Set(controls.map((c) => c.family))],
    });
  }
  return active;
}

/**
 * Where a scan's rules come from: the built-in catalog, plus whatever `extra` adds for the organization (its
 * enabled custom rules). Only the runner asks it; results read the rules stored with the scan.
 */
export type ExtraRules = (orgId: string, provider: Provider, families: readonly string[]) => Promise<ActiveRule[]>;

export class RuleSource {
  constructor(private readonly extra: ExtraRules = async () => []) {}

  async rulesFor(orgId: string, provider: Provider, families: readonly string[]): Promise<ActiveRule[]> {
    return [...rulesForScan(provider, families), ...(await this.extra(orgId, provider, families))];
  }
}
