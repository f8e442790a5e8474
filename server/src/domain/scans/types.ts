import type { RuleInfo } from './rule-set.js';
import type { ScanStatus } from '../environments/types.js';

/*
 * A scan and its summary as the layers hand them to one another: read-only, so that the compiler forbids a reader
 * to change what it was given; a use case that changes a scan makes a new one (`{ ...scan, status }`).
 */

export interface FamilySummary {
  readonly family: string;
  readonly compliant: number;
  readonly noncompliant: number;
  readonly rulesPassed: number;
  readonly rulesFailed: number;
}

/** Counts of one finished scan, kept with the scan (small; the results themselves are stored per resource and rule). */
export interface ResourceSummary {
  readonly total: number;
  readonly compliant: number;
  readonly noncompliant: number;
  readonly resourceTypes: number;
  readonly rulesPassed: number;
  readonly rulesFailed: number;
  readonly families: readonly FamilySummary[];
}

export interface ResourceTypeError {
  readonly resourceType: string;
  readonly message: string;
}

export interface Scan {
  readonly id: string;
  readonly orgId: string;
  readonly environmentId: string;
  readonly status: ScanStatus;
  readonly message: string | null;
  readonly remediationError: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly finishedAt: number | null;
  readonly summary: ResourceSummary | null;
  readonly resourceTypeErrors: readonly ResourceTypeError[];
  /** The families whose rules the scan evaluates. */
  readonly families: readonly string[];
  readonly jobId: string | null;
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
