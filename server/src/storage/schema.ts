/**
 * Row types of every table, as both databases hold them. Booleans are stored as integers 0/1 and lists and
 * documents as JSON text, so that one set of queries and migrations serves SQLite and PostgreSQL alike;
 * repositories translate rows into domain records.
 */
import type { Generated } from 'kysely';

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiClientsTable {
  client_id: string;
  org_id: string;
  name: string;
  status: string;
  secret_hash: string | null;
  secret_created_at: number | null;
  last_activity_at: number | null;
  created_at: number;
}

export interface EnvironmentsTable {
  id: string;
  org_id: string;
  name: string;
  provider: string;
  provider_options: string;
  compliance_families: string;
  survey_resource_types: string;
  survey_resource_groups: string | null;
  remediate_resource_types: string;
  baseline_id: string | null;
  remediation: number;
  scan_interval: number;
  scan_schedule_enabled: number;
  schedule_anchor_at: number;
  last_scan_id: string | null;
  last_scan_at: number | null;
  scan_status: string | null;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  updated_at: number;
  /** Drawn anew by the database at every write of the row (migrations 0014, 0019): what a kept copy is checked against. */
  version: Generated<number>;
}

/** Per organization, drawn anew by the database at every write of one of its environments (migrations 0014, 0019). */
export interface EnvironmentListVersionsTable {
  org_id: string;
  version: number;
}

export interface ScansTable {
  id: string;
  org_id: string;
  environment_id: string;
  status: string;
  message: string | null;
  remediation_error: number;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  updated_at: number;
  finished_at: number | null;
  /** ResourceSummary of a finished scan, JSON. */
  summary: string | null;
  /** [{resource_type, error_message}], JSON. */
  resource_type_errors: string | null;
  /** The compliance families the scan evaluated, JSON. */
  families: string | null;
  /** The job that runs the scan. */
  job_id: string | null;
}

export interface CloudAccountsTable {
  account_key: string;
  provider: string;
  next_seq: number;
  drift_steps: number;
  collections: number;
  created_at: number;
}

export interface CloudResourcesTable {
  account_key: string;
  resource_id: string;
  /** Dense per-account number, so that drift can pick resources at random without scanning the inventory. */
  seq: number;
  type: string;
  region: string | null;
  resource_group: string | null;
  name: string;
  tags: string;
  properties: string;
  revertible: number;
  managed_by: string | null;
  updated_at: number;
}

export interface ScanResourcesTable {
  scan_id: string;
  resource_id: string;
  resource_type: string;
  /** The ResourceDocument as the scan saw it, JSON: the baseline for drift and the input of rule tests. */
  document: string;
  failed_rules: number;
}

export interface ScanFindingsTable {
  scan_id: string;
  rule_id: string;
  resource_id: string;
  resource_type: string;
  /** FAIL or ERROR; passing pairs are not stored, only counted. */
  result: string;
  message: string;
}

export interface ScanRuleResultsTable {
  scan_id: string;
  rule_id: string;
  result: string;
  evaluated: number;
  failed: number;
  unsurveyed_types: string;
  missing_types: string;
  /** The rule as it was evaluated (title, severity, controls), JSON: later edits of the rule never rewrite results. */
  rule: string;
}

export interface ScanTypeResultsTable {
  scan_id: string;
  resource_type: string;
  total: number;
  noncompliant: number;
}

export interface EventsTable {
  id: string;
  org_id: string;
  environment_id: string;
  scan_id: string;
  event_type: string;
  resource_id: string;
  resource_type: string;
  change: string | null;
  remediated: number | null;
  error: string | null;
  /** resource_diff or compliance_diff, JSON. */
  detail: string;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  /** Orders events created in the same second. */
  seq: number;
}

export interface ConductorUsersTable {
  name: string;
  secret_hash: string | null;
  secret_created_at: number | null;
  created_at: number;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  status: string;
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** Set for work that must be queued at most once; unique. */
  dedupe_key: string | null;
  /** The X-Request-Id of the request that caused the job, if one did. */
  request_id: string | null;
  /** The party the job works for (`org:<orgId>`, `conductor:<account>`): the queue serves them in turn. */
  tenant: string;
}

/** When the queue last served each tenant: the one served longest ago goes first. */
export interface JobTenantsTable {
  tenant: string;
  /** The number of the claim that last served the tenant, 0 if none did; numbers grow with every claim. */
  last_claim: number;
}

export interface UsersTable {
  id: string;
  org_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** scrypt hash `scrypt$N$r$p$salt$hash`; null for a user who has not set a password yet. */
  password_hash: string | null;
  owner: number;
  status: string;
  /** The invite the user accepted to join (migration 0020); null for users the server or the operator made. */
  invite_id: string | null;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  updated_at: number;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the session token; the token itself lives only in the browser's cookie. */
  token_hash: string;
  user_id: string;
  org_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** One failed authentication under one key of the limits it counts against (domain/auth/throttle.ts). */
export interface AuthFailuresTable {
  key: string;
  at: number;
  /** The attempt the row belongs to: recorded before the check, deleted when the credential was right. */
  attempt_id: string | null;
}

/** The answer of a rule test asked `via_download`, kept for its download. */
export interface RuleTestOutputsTable {
  id: string;
  org_id: string;
  /** The tested scan's environment: a download needs access over it. */
  environment_id: string;
  created_at: number;
  /** The domain's RuleTestResult, JSON. */
  output: string;
}

export interface NotificationsTable {
  id: string;
  org_id: string;
  name: string;
  /** Lower-case event kinds, JSON. */
  events: string;
  /** 1: every environment of the organization, including later ones; notification_environments is then empty. */
  all_environments: number;
  /** JSON. */
  emails: string;
  webhook_url: string | null;
  /** Kept in clear: it keys the HMAC of every delivery. Never shown. */
  webhook_secret: string | null;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  created_by: string;
  updated_at: number;
  updated_by: string;
  last_error: string | null;
  last_delivery_at: number | null;
}

export interface NotificationEnvironmentsTable {
  notification_id: string;
  environment_id: string;
}

export interface NotificationDeliveriesTable {
  id: string;
  notification_id: string;
  /** Shared by the attempts of one delivery (the id of its job). */
  delivery_id: string;
  scan_id: string;
  environment_id: string;
  transport: string;
  target: string;
  attempt: number;
  status: string;
  will_retry: number;
  http_status: number | null;
  smtp_response: string | null;
  error: string | null;
  attempted_at: number;
}

export interface CustomRulesTable {
  id: string;
  org_id: string;
  name: string;
  description: string;
  /** ["PROVIDER_A", …], JSON. */
  providers: string;
  resource_type: string;
  rule_text: string;
  severity: string;
  status: string;
  /** Compliance families, JSON; [] = every family a scan evaluates. */
  families: string;
  created_at: number;
  created_by: string;
  created_by_name: string;
  updated_at: number;
  updated_by: string;
  updated_by_name: string;
}

export interface GroupsTable {
  id: string;
  org_id: string;
  name: string;
  policy: string;
  /** 1: every environment of the organization, present and future. */
  all_environments: number;
  created_at: number;
  updated_at: number;
}

export interface GroupEnvironmentsTable {
  group_id: string;
  environment_id: string;
}

export interface GroupUsersTable {
  group_id: string;
  user_id: string;
}

export interface GroupApiClientsTable {
  group_id: string;
  client_id: string;
}

export interface InvitesTable {
  id: string;
  org_id: string;
  email: string;
  /** The email while the invite may be pending (unique per organization); null once accepted or expired. */
  pending_email: string | null;
  expires_at: number | null;
  /** SHA-256 of the token in the link of the latest email sent (migration 0020); null until one is sent. */
  token_hash: string | null;
  accepted_at: number | null;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  updated_at: number;
  /** Why the server gave up emailing the invite (migration 0021); null while it was not given up. */
  delivery_error: Generated<string | null>;
}

export interface InviteGroupsTable {
  invite_id: string;
  group_id: string;
}

export interface ConductorValidationLibrariesTable {
  name: string;
  /** The archive exactly as uploaded. */
  archive: Buffer;
  size: number;
  sha256: string;
  /** The parsed rules.yaml, JSON. */
  rules: string;
  rule_count: number;
  created_at: number;
}

export interface ConductorRbacPolicyTable {
  /** Always 1: at most one policy is attached. */
  slot: number;
  /** The archive exactly as uploaded. */
  archive: Buffer;
  sha256: string;
  /** The parsed policy.yaml, JSON. */
  policy: string;
  attached_at: number;
}

export interface ConductorAccountsTable {
  name: string;
  provider: string;
  account_id: string;
  created_at: number;
}

export interface ConductorProcessesTable {
  fid: string;
  alias: string | null;
  account_name: string;
  provider: string;
  account_id: string;
  state: string;
  enforcement: number;
  locked: number;
  composition_digest: string;
  /** Bumped by every change: writes based on an older version are refused. */
  version: number;
  released_at: number | null;
  created_at: number;
  /** Insertion order (migration 0010), breaking ties of `created_at`; assigned by the database. */
  created_seq: Generated<number>;
  updated_at: number;
}

export interface ConductorProcessResourcesTable {
  id: string;
  fid: string;
  name: string;
  type: string;
  region: string | null;
  resource_id: string | null;
  status: string;
  /** Desired properties and tags, JSON. */
  properties: string;
  tags: string;
  origin: string;
  position: number;
  retired: number;
}

export interface ConductorJobsTable {
  id: string;
  fid: string;
  purpose: string;
  status: string;
  queue_job_id: string | null;
  ordinal: number;
  message: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface ConductorOperationsTable {
  id: string;
  fid: string;
  job_id: string;
  job_ordinal: number;
  seq: number;
  at: number;
  operation: string;
  resource_name: string;
  resource_type: string;
  resource_id: string;
  status: string;
  message: string | null;
}

export interface ConductorHistoryTable {
  id: string;
  fid: string;
  ordinal: number;
  seq: number;
  at: number;
  event: string;
  job_id: string | null;
  actor: string;
  /** JSON. */
  details: string;
}

export interface ConductorDryRunsTable {
  id: string;
  command: string;
  status: string;
  process_fid: string | null;
  account_name: string | null;
  import_resources: number;
  composition_text: string | null;
  /** ErrorDetail[] and PlannedOperation[], JSON. */
  errors: string;
  plan: string;
  job_id: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface Database {
  organizations: OrganizationsTable;
  api_clients: ApiClientsTable;
  environments: EnvironmentsTable;
  environment_list_versions: EnvironmentListVersionsTable;
  scans: ScansTable;
  conductor_users: ConductorUsersTable;
  jobs: JobsTable;
  job_tenants: JobTenantsTable;
  cloud_accounts: CloudAccountsTable;
  cloud_resources: CloudResourcesTable;
  scan_resources: ScanResourcesTable;
  scan_findings: ScanFindingsTable;
  scan_rule_results: ScanRuleResultsTable;
  scan_type_results: ScanTypeResultsTable;
  events: EventsTable;
  users: UsersTable;
  console_sessions: ConsoleSessionsTable;
  auth_failures: AuthFailuresTable;
  notifications: NotificationsTable;
  notification_environments: NotificationEnvironmentsTable;
  notification_deliveries: NotificationDeliveriesTable;
  custom_rules: CustomRulesTable;
  rule_test_outputs: RuleTestOutputsTable;
  groups: GroupsTable;
  group_environments: GroupEnvironmentsTable;
  group_users: GroupUsersTable;
  group_api_clients: GroupApiClientsTable;
  invites: InvitesTable;
  invite_groups: InviteGroupsTable;
  conductor_accounts: ConductorAccountsTable;
  conductor_processes: ConductorProcessesTable;
  conductor_process_resources: ConductorProcessResourcesTable;
  conductor_jobs: ConductorJobsTable;
  conductor_operations: ConductorOperationsTable;
  conductor_history: ConductorHistoryTable;
  conductor_dry_runs: ConductorDryRunsTable;
  conductor_validation_libraries: ConductorValidationLibrariesTable;
  conductor_rbac_policy: ConductorRbacPolicyTable;
}
