export type EventType = 'COMPLIANCE' | 'DRIFT' | 'REMEDIATION';
export type Change = 'ADDED' | 'MODIFIED' | 'REMOVED';

export interface AttributeChange {
  name: string;
  old: string | null;
  new: string | null;
  removed: boolean;
  requiresNew: boolean;
  sensitive: boolean;
}

export interface ResourceDiff {
  resourceId: string;
  resourceType: string;
  change: Change;
  attributes: AttributeChange[];
}

export interface RuleChange {
  ruleId: string;
  summary: string;
  families: string[];
  controls: string[];
  oldState: 'PASS' | 'FAIL' | 'UNKNOWN' | null;
  newState: 'PASS' | 'FAIL' | 'UNKNOWN' | null;
  oldMessage: string | null;
  newMessage: string | null;
}

export interface ComplianceDiff {
  resourceId: string;
  resourceType: string;
  oldState: 'COMPLIANT' | 'NONCOMPLIANT' | null;
  newState: 'COMPLIANT' | 'NONCOMPLIANT' | null;
  rules: RuleChange[];
}

export interface Event {
  id: string;
  orgId: string;
  environmentId: string;
  scanId: string;
  eventType: EventType;
  createdAt: number;
  resourceDiff?: ResourceDiff;
  complianceDiff?: ComplianceDiff;
  /** REMEDIATION only. */
  remediated?: boolean;
  error?: string | null;
}

export interface EventFilter {
  eventTypes?: readonly string[];
  changes?: readonly string[];
  /** Only REMEDIATION events with one of these outcomes. */
  remediated?: readonly boolean[];
  resourceTypes?: readonly string[];
  rangeFrom?: number;
  rangeTo?: number;
}
