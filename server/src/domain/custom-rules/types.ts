import type { Severity } from '../rules/catalog/rules.js';

/** Providers as custom rules name them (upper case, unlike environments' `provider`). */
export const CUSTOM_RULE_PROVIDERS = ['PROVIDER_A', 'PROVIDER_A_GOV', 'PROVIDER_B'] as const;
export type CustomRuleProvider = (typeof CUSTOM_RULE_PROVIDERS)[number];

export type CustomRuleStatus = 'ENABLED' | 'DISABLED' | 'INVALID';

/** An organization's own CEL rule over the documents of one resource type. */
export interface CustomRule {
  id: string;
  orgId: string;
  name: string;
  description: string;
  providers: CustomRuleProvider[];
  resourceType: string;
  ruleText: string;
  severity: Severity;
  status: CustomRuleStatus;
  /** [] = every family a scan evaluates. */
  families: string[];
  createdAt: number;
  createdBy: Author;
  updatedAt: number;
  updatedBy: Author;
}

/** Who made a change: an API client (id and name, as the name was then). */
export interface Author {
  id: string;
  name: string;
}

/** Something in a rule's text that compiles but probably does not do what was meant. */
export interface RuleWarning {
  text: string;
  line: number;
  column: number;
}

export interface CustomRuleWithWarnings {
  rule: CustomRule;
  warnings: RuleWarning[];
}

/** Fields as users send them, so that the checks answer in those names. */
export interface CreateCustomRuleInput {
  name: string;
  description?: string;
  provider?: string;
  providers?: string[];
  resource_type: string;
  rule_text: string;
  severity?: string;
  source?: string;
  families?: string[];
}

export interface UpdateCustomRuleInput {
  name?: string;
  description?: string;
  providers?: string[];
  resource_type?: string;
  rule_text?: string;
  severity?: string;
  status?: string;
  families?: string[];
}

/** Search terms of the list's `query` parameter, parsed; every given term must match. */
export interface CustomRuleFilter {
  name?: string[];
  id?: string[];
  resourceType?: string[];
  provider?: string[];
  severity?: string[];
  /** Substrings of the name or the description. */
  text?: string[];
  status?: CustomRuleStatus;
}

/** One resource's result in a rule test. */
export interface TestedResource {
  id: string;
  type: string;
  result: 'PASS' | 'FAIL' | 'UNKNOWN' | 'ERROR';
  message: string | null;
}

export interface RuleTestResult {
  result: TestedResource['result'];
  resourceCount: number;
  /** The first resources by id; the result and the count cover all of them. */
  resources: TestedResource[];
  warnings: RuleWarning[];
}

/** A rule test's answer kept for its download (`via_download`). */
export interface KeptRuleTestOutput {
  id: string;
  orgId: string;
  /** The tested scan's environment. */
  environmentId: string;
  createdAt: number;
  result: RuleTestResult;
}

export interface RuleTestInput {
  scanId: string;
  /** null: the documents of every resource type of the scan. */
  resourceType: string | null;
  documents: unknown[];
  isTruncated: boolean;
}
