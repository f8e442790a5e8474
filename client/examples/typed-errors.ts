// Compiled (never run) by the package test: the result of `results(client)` narrows on `ok` and `status` to the
// body the spec documents for that status, and statuses or fields the spec does not document do not compile.
import {
  ApiError,
  createComplianceClient,
  createConductorClient,
  results,
  unwrap,
  type ApiResult,
  type ComplianceOperations,
  type OperationError,
} from '@compliance-conductor/client';

const compliance = createComplianceClient({ baseUrl: 'https://compliance.example.com', auth: { user: 'cl_id', secret: 'secret' } });
const conductor = createConductorClient({ baseUrl: 'https://conductor.example.com', auth: { user: 'root', secret: 'secret' } });

export async function environmentName(environmentId: string): Promise<string> {
  const result = await results(compliance).GET('/environments/{environment_id}', { params: { path: { environment_id: environmentId } } });
  if (result.ok) {
    const status: 200 = result.status;
    return `${status} ${result.data.name}`;
  }
  switch (result.status) {
    case 404: {
      const type: 'NotFound' = result.error.type;
      const code: 404 = result.error.code;
      return `${type} ${code}: ${result.error.message}`;
    }
    case 401: {
      const type: 'AuthenticationError' = result.error.type;
      return type;
    }
    case 400: {
      // Every error status has the literal union of the `type`s the spec lists for it.
      const type:
        | 'BadRequest'
        | 'InvalidJSON'
        | 'InvalidParameterValue'
        | 'MissingParameter'
        | 'AlreadyInvitedError'
        | 'AlreadyAttachedToTenantError'
        | 'WorkAlreadyStartedException' = result.error.type;
      // @ts-expect-error a 400 is never NotFound
      const notFound: 'NotFound' = result.error.type;
      return `${type} ${notFound}`;
    }
    case 403: {
      const type: 'AuthorizationError' | 'EnvironmentAccessDenied' = result.error.type;
      return type;
    }
    case 429: {
      // Too many failed authentications from this address: wait Retry-After seconds.
      const type: 'TooManyRequests' = result.error.type;
      return `${type}, retry after ${result.response.headers.get('Retry-After')} s`;
    }
    case 500:
      return result.error.message;
    case 503: {
      const type: 'ServiceUnavailable' = result.error.type;
      return type;
    }
    case 304:
      // Only when the request sent If-None-Match: the answer it holds, named by the ETag, is still current.
      return `not modified since ${result.response.headers.get('ETag')}`;
    // @ts-expect-error getEnvironment documents no 409
    case 409:
      return 'never';
  }
}

export async function startScan(environmentId: string): Promise<string> {
  const result = await results(compliance).POST('/scans', { params: { query: { environment_id: environmentId } } });
  if (result.ok) return result.data.status;
  if (result.status === 400) {
    // A scan already in progress is a 400 of this type, as the public service answers it.
    const started: boolean = result.error.type === 'WorkAlreadyStartedException';
    // @ts-expect-error a 400 carries a BadRequestError, not a NotFoundError
    const type: 'NotFound' = result.error.type;
    return `${type} ${started}`;
  }
  // @ts-expect-error an error result has no data
  return result.data.status;
}

export async function dryRunStatus(id: string): Promise<string> {
  const result = await results(conductor).GET('/dry-run/{id}', { params: { path: { id }, query: { timeout: 5 } } });
  if (!result.ok) {
    // The conductor's error body: `{ code, message, errors }`.
    return `${result.status} ${result.error.message} ${result.error.errors.map((e) => e.code).join(',')}`;
  }
  const status: 200 = result.status;
  // @ts-expect-error getDryRun succeeds only with 200
  const accepted: 202 = result.status;
  return `${status} ${accepted} ${result.data.status}`;
}

// @ts-expect-error the path must be one the spec has
export const unknownPath = () => results(compliance).GET('/no-such-path');

// @ts-expect-error a required path parameter is missing
export const missingParameter = () => results(compliance).GET('/scans/{scan_id}', { params: { path: {} } });

/** The per-status union on its own, for code that handles an `ApiError` thrown by `unwrap`. */
type GetScanError = OperationError<ComplianceOperations['getScan']>;
export function explain(error: GetScanError): string {
  if (error.status === 304) return 'not modified';
  if (error.status === 404) return error.body.type;
  return error.body.message;
}
// @ts-expect-error getScan documents no 409
export const noConflict: GetScanError = { status: 409, body: { type: 'Conflict', code: 409, message: 'x' } };

export type GetScanResult = ApiResult<ComplianceOperations['getScan']>;

export async function throwingStyle(scanId: string): Promise<string> {
  try {
    const scan = await unwrap(compliance.GET('/scans/{scan_id}', { params: { path: { scan_id: scanId } } }));
    return scan.status;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return `${error.operation}: ${error.message}`;
    if (error instanceof ApiError && typeof error.body === 'object') {
      // The body is one of the APIs' error bodies, not `any`: a field none of them has does not compile.
      const message: string = error.body.message;
      // @ts-expect-error no error body of the APIs has `reason`
      const reason = error.body.reason;
      return `${message} ${String(reason)}`;
    }
    throw error;
  }
}
