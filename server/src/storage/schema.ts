/**
 * Row types of every table, as both databases hold them. Booleans are stored as integers 0/1 and lists and
 * documents as JSON text, so that one set of queries and migrations serves SQLite and PostgreSQL alike;
 * repositories translate rows into domain records.
 */
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
  updated_at: number;
}

export interface ScansTable {
  id: string;
  org_id: string;
  environment_id: string;
  status: string;
  message: string | null;
  remediation_error: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
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
}

export interface Database {
  organizations: OrganizationsTable;
  api_clients: ApiClientsTable;
  environments: EnvironmentsTable;
  scans: ScansTable;
  conductor_users: ConductorUsersTable;
  jobs: JobsTable;
}
