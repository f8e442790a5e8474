/**
 * Typed clients of the compliance, conductor and console APIs, with helpers for errors, paged lists, archive
 * uploads and waiting on scans and dry-runs. Browser-safe: only `fetch` and web APIs (Node helpers are in
 * `@compliance-conductor/client/node`).
 */
export {
  BASE_PATHS,
  createComplianceClient,
  createConductorClient,
  createConsoleClient,
  type ApiClientOptions,
  type BasicAuthClientOptions,
  type BasicCredentials,
  type ComplianceClient,
  type CompliancePaths,
  type ConductorClient,
  type ConductorPaths,
  type ConsoleClient,
  type ConsoleClientOptions,
  type ConsolePaths,
} from './clients.js';
export {
  ApiError,
  results,
  unwrap,
  type ApiErrorBody,
  type ApiResult,
  type BodyOf,
  type ComplianceErrorBody,
  type ConductorErrorBody,
  type ConsoleErrorBody,
  type ErrorResult,
  type FetchOutcome,
  type HttpMethod,
  type Operation,
  type OperationError,
  type ResultClient,
  type SuccessResult,
} from './errors.js';
export { listAll, pages, type Page } from './paging.js';
export { tarFiles, type TarFile } from './tar.js';
export {
  addValidation,
  attachRbacPolicy,
  createProcess,
  submitDryRun,
  updateProcessComposition,
  type ArchiveSource,
  type CompositionUpdateAccepted,
  type CreateProcessQuery,
  type DryRunAccepted,
  type DryRunQuery,
  type Process,
  type RbacStatus,
  type ValidationLibrary,
} from './uploads.js';
export { waitForDryRun, waitForScan, WaitTimeoutError, type DryRun, type Scan, type ScanWithSummary, type WaitOptions } from './wait.js';
export type { components as ComplianceComponents, operations as ComplianceOperations } from './generated/compliance.js';
export type { components as ConductorComponents, operations as ConductorOperations } from './generated/conductor.js';
export type { components as ConsoleComponents, operations as ConsoleOperations } from './generated/console.js';
