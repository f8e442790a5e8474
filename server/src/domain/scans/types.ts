import type { RuleInfo } from './rule-set.js';
import type { ScanStatus } from '../environments/types.js';

export interface FamilySummary {
  family: string;
  compliant: number;
  noncompliant: number;
  rulesPassed: number;
  rulesFailed: number;
}

/** Counts of one finished scan, kept with the scan (small; the results themselves are stored per resource and rule). */
export interface ResourceSummary {
  total: number;
  compliant: number;
  noncompliant: number;
  resourceTypes: number;
  rulesPassed: number;
  rulesFailed: number;
  families: FamilySummary[];
}

export interface ResourceTypeError {
  resourceType: string;
  message: string;
}

export interface Scan {
  id: string;
  orgId: string;
  environmentId: string;
  status: ScanStatus;
  message: string | null;
  remediationError: boolean;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  summary: ResourceSummary | null;
  resourceTypeErrors: ResourceTypeError[];
  /** The families whose rules the scan evaluates. */
  families: string[];
  jobId: string | null;
}

export type RuleResultValue = 'PASS' | 'FAIL' | 'UNKNOWN';

/** One rule's outcome over the whole scan, with the rule as it was evaluated. */
export interface RuleResult {
  ruleId: string;
  rule: RuleInfo;
  result: RuleResultValue;
  evaluated: number;
  failed: number;
  /** Types of the rule the environment does not survey, or that could not be listed: the rule is UNKNOWN. */
  unsurveyedTypes: string[];
  /** Types the rule requires at least one resource of, and that have none: the rule FAILs. */
  missingTypes: string[];
}

/** A resource that does not pass a rule: it FAILs, or the rule could not be evaluated on it (ERROR). */
export interface Finding {
  ruleId: string;
  resourceId: string;
  resourceType: string;
  result: 'FAIL' | 'ERROR';
  message: string;
}

export interface TypeResult {
  resourceType: string;
  total: number;
  noncompliant: number;
}

export interface ScannedResource {
  resourceId: string;
  resourceType: string;
  /** The ResourceDocument as JSON text, compared as text first so unchanged resources cost no parsing. */
  document: string;
  failedRules: number;
}
