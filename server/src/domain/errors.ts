/**
 * The one error type of the domain. Use cases throw it; the HTTP layer maps its code to a status and renders the
 * error body of the API that was called. Domain code never speaks of HTTP statuses.
 */
export type ErrorCode =
  | 'invalid_json'
  | 'missing_parameter'
  | 'invalid_parameter'
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'environment_access_denied'
  | 'invalid_csrf_token'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  /** What a link named can no longer be used (an invitation accepted or expired). */
  | 'gone'
  | 'work_already_started'
  | 'already_invited'
  | 'already_member'
  | 'illegal_state'
  | 'payload_too_large'
  | 'rate_limited'
  | 'not_implemented'
  | 'internal'
  | 'unavailable';

/** One problem behind an error, e.g. one failing rule of a validation library. */
export interface ErrorDetail {
  code: string;
  message: string;
  location: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** rate_limited only: seconds until another attempt may succeed. */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { details?: ErrorDetail[]; cause?: unknown; retryAfter?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details ?? [];
    this.retryAfter = options.retryAfter;
  }

  /** An input field broke a rule; `field` is its path in the request, e.g. `body.scan_interval`. */
  static invalid(field: string, rule: string): AppError {
    return new AppError('invalid_parameter', `${field}: ${rule}`);
  }

  static missing(field: string, rule = 'is required'): AppError {
    return new AppError('missing_parameter', `${field}: ${rule}`);
  }

  static notFound(what: string, id: string): AppError {
    return new AppError('not_found', `${what} ${id} not found`);
  }
}
