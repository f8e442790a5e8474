import type { components as ComplianceComponents } from '../generated/compliance.js';
import type { components as ConductorComponents } from '../generated/conductor.js';

/** Short names for the generated schema types the commands print and send. */
type C = ComplianceComponents['schemas'];
type K = ConductorComponents['schemas'];

export type Environment = C['Environment'];
export type EnvironmentWithSummary = C['EnvironmentWithSummary'];
export type CreateEnvironmentInput = C['CreateEnvironmentInput'];
export type UpdateEnvironmentInput = C['UpdateEnvironmentInput'];
export type ResourceSummary = C['ResourceSummary'];
export type Scan = C['Scan'];
export type ScanWithSummary = C['ScanWithSummary'];
export type ComplianceByRule = C['ComplianceByRule'];
export type ComplianceByResourceType = C['ComplianceByResourceType'];
export type ComplianceFamily = C['ComplianceFamily'];
export type Event = C['Event'];
export type CustomRule = C['CustomRule'];
export type CustomRuleWithErrors = C['CustomRuleWithErrors'];
export type CreateCustomRuleInput = C['CreateCustomRuleInput'];
export type TestCustomRuleInput = C['TestCustomRuleInput'];
export type TestCustomRuleOutput = C['TestCustomRuleOutput'];
export type Provider = C['Provider'];

export type Account = K['Account'];
export type AccountInput = K['AccountInput'];
export type Process = K['Process'];
export type ProcessSummary = K['ProcessSummary'];
export type ProcessPatch = K['ProcessPatch'];
export type DryRun = K['DryRun'];
export type HistoryEntry = K['HistoryEntry'];
export type Operation = K['Operation'];
export type RbacStatus = K['RbacStatus'];
export type ValidationLibrary = K['ValidationLibrary'];
export type ConductorError = K['Error'];
