import type { ErrorRequestHandler, Response } from 'express';
import { AppError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import { characterCount, firstCharacters } from '../domain/text.js';
import type { ApiName } from './apis.js';
import type { QueryParameterCheck, QueryProblem } from './query-parameters.js';
import { refusalBehind } from './credential-refusals.js';
import { unavailableBehind, unavailableFrom } from './unavailable.js';

/** The one table from error codes to HTTP statuses. */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_json: 400,
  missing_parameter: 400,
  invalid_parameter: 400,
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  environment_access_denied: 403,
  invalid_csrf_token: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  // The public service answers these refusals 400 (its BadRequestError types), and its clients expect them there.
  work_already_started: 400,
  already_invited: 400,
  already_member: 400,
  illegal_state: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
};

/** `type` of the compliance and console error bodies, per code. */
const TYPE_OF: Record<ErrorCode, string> = {
  invalid_json: 'InvalidJSON',
  missing_parameter: 'MissingParameter',
  invalid_parameter: 'InvalidParameterValue',
  bad_request: 'BadRequest',
  unauthenticated: 'AuthenticationError',
  forbidden: 'AuthorizationError',
  environment_access_denied: 'EnvironmentAccessDenied',
  invalid_csrf_token: 'InvalidCsrfToken',
  not_found: 'NotFound',
  method_not_allowed: 'MethodNotAllowed',
  conflict: 'Conflict',
  gone: 'Gone',
  work_already_started: 'WorkAlreadyStartedException',
  already_invited: 'AlreadyInvitedError',
  already_member: 'AlreadyAttachedToTenantError',
  illegal_state: 'Conflict',
  payload_too_large: 'PayloadTooLarge',
  rate_limited: 'TooManyRequests',
  internal: 'InternalServerError',
  not_implemented: 'NotImplemented',
  unavailable: 'ServiceUnavailable',
};

/** What a CSRF refusal says; the one place both the check and the error mapping read it from. */
export const CSRF_REFUSED = 'The X-CSRF-Token header is missing or does not match the session';
/** Marks a 401 that came from a security handler, which answers with the API's standard message. */
const FROM_SECURITY = 'credentials missing or invalid';

/** Seed 000 §7 and product.md §6: what an authentication failure says on each API. */
const UNAUTHENTICATED: Record<ApiName, { message: string; challenge: string }> = {
  compliance: { message: 'The authentication token is invalid or missing', challenge: 'Basic realm="compliance", charset="UTF-8"' },
  conductor: { message: 'Unauthorized', challenge: 'Basic realm="conductor", charset="UTF-8"' },
  console: { message: 'Sign in required', challenge: '' },
};

/**
 * One problem of a request: a schema rule ajv found broken, or one the validator or query-parameters.ts found
 * itself (those carry no `errorCode`, and a `message` of their own wording).
 */
interface ValidatorErrorItem {
  /** Where: `/body/name`, `/query/offset`; for a missing or unknown property, the property itself. */
  path?: string;
  message?: string;
  /** `<ajv keyword>.openapi.validation` for a schema rule (`required.openapi.validation`). */
  errorCode?: string;
  /** ajv's params of the rule (`missingProperty`, `allowedValues`, `limit`, `type`, …), passed on by the patch. */
  params?: Record<string, unknown>;
}

interface ValidatorError {
  status: number;
  message?: string;
  errors?: ValidatorErrorItem[];
  headers?: Record<string, string>;
  type?: string;
}

const isValidatorError = (error: unknown): error is ValidatorError =>
  typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';

/**
 * `/body/provider_options/regions/0`, `.query.max_items` or `.params.id` → `provider_options.regions[0]`,
 * `query.max_items`, `path.id`: the compliance and console messages name body fields bare, as their users send them.
 */
function fieldOf(path: string): string {
  const parts = path.replace(/^[./]/, '').split(/[./]/).filter(Boolean);
  if (parts[0] === 'body') parts.shift();
  if (parts[0] === 'params') parts[0] = 'path';
  return parts.map((p, i) => (/^[0-9]+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'body';
}

/** The conductor's `location` of a request problem: `body.alias`, `query.timeout`, `path.process`. */
function locationOf(field: string, path: string): string {
  const inBody = /^[./]?body([./]|$)/.test(path) || !/^[./]?(query|params|path|headers)([./]|$)/.test(path);
  return inBody && field !== 'body' ? `body.${field}` : field;
}

/** The ajv keyword of a schema rule's problem; undefined for the validator's own problems and ours. */
function keywordOf(item: ValidatorErrorItem): string | undefined {
  const suffix = '.openapi.validation';
  return item.errorCode?.endsWith(suffix) ? item.errorCode.slice(0, -suffix.length) : undefined;
}

/** The JSON types a `type` rule accepts (`['integer', 'string']` or `'string'`). */
const typesOf = (params: Record<string, unknown>): string[] => (Array.isArray(params.type) ? params.type : [params.type]).map(String);

const commaList = (values: unknown): string => (Array.isArray(values) ? values : [values]).map(String).join(', ');

/**
 * What each kind of broken rule says, after the field's name, from what ajv found (its params). The words are
 * ajv's own where clients already read them (`must NOT have fewer than 12 characters` is in the console's spec).
 */
const RULES: Record<string, (params: Record<string, unknown>) => string> = {
  required: () => 'is required',
  additionalProperties: () => 'is not allowed',
  type: (params) => `must be ${typesOf(params).join(' or ')}`,
  enum: (params) => `must be equal to one of the allowed values: ${commaList(params.allowedValues)}`,
  const: (params) => `must be equal to ${JSON.stringify(params.allowedValue)}`,
  minLength: ({ limit }) => `must NOT have fewer than ${limit} characters`,
  maxLength: ({ limit }) => `must NOT have more than ${limit} characters`,
  minItems: ({ limit }) => `must NOT have fewer than ${limit} items`,
  maxItems: ({ limit }) => `must NOT have more than ${limit} items`,
  minProperties: ({ limit }) => `must NOT have fewer than ${limit} properties`,
  maxProperties: ({ limit }) => `must NOT have more than ${limit} properties`,
  minimum: ({ comparison, limit }) => `must be ${comparison} ${limit}`,
  maximum: ({ comparison, limit }) => `must be ${comparison} ${limit}`,
  exclusiveMinimum: ({ comparison, limit }) => `must be ${comparison} ${limit}`,
  exclusiveMaximum: ({ comparison, limit }) => `must be ${comparison} ${limit}`,
  multipleOf: ({ multipleOf }) => `must be a multiple of ${multipleOf}`,
  pattern: ({ pattern }) => `must match pattern "${pattern}"`,
  format: ({ format }) => `must match format "${format}"`,
  uniqueItems: ({ i, j }) => `must NOT have duplicate items (items ${j} and ${i} are identical)`,
};

/**
 * A problem worded to read after its field's name. A rule of a kind not worded above (none of the specs' own), and a
 * problem the validator or query-parameters.ts found itself, says what its finder said.
 */
function ruleOf(item: ValidatorErrorItem): string {
  const keyword = keywordOf(item);
  const word = keyword === undefined ? undefined : RULES[keyword];
  if (word && item.params) return word(item.params);
  return item.message || 'is invalid';
}

/**
 * The most problems one 400 lists. The validator reports every problem (ajv's allErrors), so a body of a
 * hundred thousand bad array items would otherwise come back as a message of megabytes.
 */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The longest `message` of an error body, and of each field of a conductor error detail (the specs' `maxLength`).
 * A message names fields and values the client sent, which may be as long as the body; past the bound it is cut.
 */
export const MAX_ERROR_MESSAGE_LENGTH = 16384;
export const MAX_ERROR_DETAIL_LENGTH = 4096;
/** A field name longer than this (a body key of any length) is shown cut, so that a hundred problems still fit. */
const MAX_FIELD_SHOWN = 256;

/** `text` cut to `limit` characters, ending in `…` when cut. */
function bounded(text: string, limit: number): string {
  if (text.length <= limit || characterCount(text) <= limit) return text;
  return `${firstCharacters(text, limit - 1)}…`;
}

interface Problem {
  field: string;
  location: string;
  rule: string;
}

/** Each distinct rule, once. */
const distinct = (rules: string[]): string[] => [...new Set(rules)];

/**
 * One problem per rule broken, in the order found. A field that accepts alternatives (`oneOf`: an integer or a
 * string of digits) fails every branch; only the rule that matters is kept: a broken bound if there is one,
 * otherwise the accepted types.
 */
function problemsOf(errors: ValidatorErrorItem[]): Problem[] {
  const byField = new Map<string, { location: string; items: ValidatorErrorItem[] }>();
  for (const e of errors) {
    const field = fieldOf(e.path ?? '');
    const entry = byField.get(field) ?? { location: locationOf(field, e.path ?? ''), items: [] };
    entry.items.push(e);
    byField.set(field, entry);
  }
  const problems: Problem[] = [];
  for (const [fullField, { location: fullLocation, items }] of byField) {
    const [field, location] = [bounded(fullField, MAX_FIELD_SHOWN), bounded(fullLocation, MAX_FIELD_SHOWN)];
    const alternatives = items.find((e) => keywordOf(e) === 'oneOf');
    if (!alternatives) {
      problems.push(...distinct(items.map(ruleOf)).map((rule) => ({ field, location, rule })));
      continue;
    }
    const specific = distinct(items.filter((e) => keywordOf(e) !== 'oneOf' && keywordOf(e) !== 'type').map(ruleOf));
    const types = distinct(items.flatMap((e) => (keywordOf(e) === 'type' && e.params ? typesOf(e.params) : [])));
    const rule = specific.length > 0 ? specific.join(', ') : types.length > 0 ? `must be ${types.join(' or ')}` : ruleOf(alternatives);
    problems.push({ field, location, rule });
  }
  return problems;
}

/** Every problem, up to MAX_LISTED_PROBLEMS, as one message (`field: rule; field: rule`) and as conductor details. */
function describeProblems(errors: ValidatorErrorItem[]): { message: string; details: ErrorDetail[] } {
  const problems = problemsOf(errors);
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const rest = problems.length - listed.length;
  const lines = listed.map((p) => `${p.field}: ${p.rule}`);
  if (rest > 0) lines.push(`and ${rest} more problem${rest === 1 ? '' : 's'}`);
  return {
    message: lines.join('; '),
    details: listed.map((p) => ({ code: p.location, message: `${p.field}: ${p.rule}`, location: p.location })),
  };
}

/**
 * The conductor lists each problem in `errors`. A 400 raised with a message alone (`field: rule`, as
 * AppError.invalid and the body parser make them) becomes the one detail it describes.
 */
function detailsOf(error: AppError): ErrorDetail[] {
  if (error.details.length > 0 || STATUS_OF[error.code] !== 400) return error.details;
  const match = /^([A-Za-z_][\w.[\]-]*|Content-Type): (.+)$/s.exec(error.message);
  const location = match ? match[1]! : 'request';
  return [{ code: location, message: error.message, location }];
}

/**
 * Turns anything thrown while serving a request into an AppError: our own, the validator's (bad input, missing
 * credentials, unknown route) and the body parser's (malformed JSON, oversized body).
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (!isValidatorError(error)) return unavailableFrom(error) ?? new AppError('internal', 'Internal server error', { cause: error });

  if (error.type === 'entity.parse.failed') return new AppError('invalid_json', `body: not valid JSON (${error.message ?? 'parse error'})`);
  if (error.type === 'entity.too.large') return new AppError('payload_too_large', 'body: larger than the size limit');
  switch (error.status) {
    case 400: {
      const errors = error.errors ?? [];
      const missing = errors.length > 0 && errors.every((e) => keywordOf(e) === 'required');
      const { message, details } = describeProblems(errors);
      return new AppError(missing ? 'missing_parameter' : 'invalid_parameter', message || error.message || 'invalid request', { details });
    }
    case 401:
      // The validator refuses a missing X-CSRF-Token header itself; it checks the session cookie first, so a
      // refusal naming the token means the session was fine and only the CSRF token is missing.
      if (/x-csrf-token/i.test(error.message ?? '')) return new AppError('invalid_csrf_token', CSRF_REFUSED);
      return new AppError('unauthenticated', FROM_SECURITY);
    case 403:
      // The console's CSRF check is a security handler; the validator keeps only its status and message.
      return new AppError(error.message === CSRF_REFUSED ? 'invalid_csrf_token' : 'forbidden', error.message ?? 'forbidden');
    case 404:
      return new AppError('not_found', 'no such operation; see the API documentation at /docs');
    case 405:
      return new AppError('method_not_allowed', error.message ?? 'method not allowed');
    case 413:
      return new AppError('payload_too_large', 'body: larger than the size limit');
    case 415:
      return new AppError('bad_request', `Content-Type: ${error.message ?? 'unsupported media type'}`);
    default:
      return new AppError('internal', 'Internal server error', { cause: error });
  }
}

function body(api: ApiName, status: number, error: AppError, message: string): { message: string; [field: string]: unknown } {
  const shown = bounded(message, MAX_ERROR_MESSAGE_LENGTH);
  if (api === 'conductor') {
    const errors: ErrorDetail[] = detailsOf(error)
      .slice(0, MAX_LISTED_PROBLEMS)
      .map((detail) => ({
        code: bounded(detail.code, MAX_ERROR_DETAIL_LENGTH),
        message: bounded(detail.message, MAX_ERROR_DETAIL_LENGTH),
        location: bounded(detail.location, MAX_ERROR_DETAIL_LENGTH),
      }));
    return { code: status, message: shown, errors };
  }
  return { type: TYPE_OF[error.code], code: status, message: shown };
}

function setHeaders(res: Response, api: ApiName, error: AppError, original: unknown): void {
  if (error.code === 'unauthenticated' && UNAUTHENTICATED[api].challenge) {
    res.set('WWW-Authenticate', UNAUTHENTICATED[api].challenge);
  }
  const extra = isValidatorError(original) ? original.headers : undefined;
  if (extra) res.set(extra);
  if (error.retryAfter !== undefined) res.set('Retry-After', String(error.retryAfter));
}

/**
 * Only the conductor documents 413 (its archives have a size limit of their own); on the JSON APIs a body over
 * the limit is one more bad request.
 */
function statusOf(api: ApiName, error: AppError): number {
  if (error.code === 'payload_too_large' && api !== 'conductor') return STATUS_OF.bad_request;
  return STATUS_OF[error.code];
}

/** A validator's 400 with the query's own problems added, each once: every problem of the request in one answer. */
function withQueryProblems(raw: unknown, problems: QueryProblem[]): unknown {
  if (problems.length === 0 || !isValidatorError(raw) || raw.status !== 400 || raw.type !== undefined) return raw;
  const errors = raw.errors ?? [];
  const fresh = problems.filter((p) => !errors.some((e) => e.path === p.path && e.message === p.message));
  return fresh.length === 0 ? raw : { ...raw, message: raw.message, errors: [...fresh, ...errors] };
}

/** Renders every error of one API in that API's error body. */
export function errorRenderer(api: ApiName, queryCheck?: QueryParameterCheck): ErrorRequestHandler {
  return (raw, req, res, next) => {
    if (res.headersSent) return next(raw);
    let error = toAppError(queryCheck ? withQueryProblems(raw, queryCheck.problems(req)) : raw);
    // The validator's 500 for credentials that could not be checked (the database was unavailable), or that were
    // not checked at all (too many failed authentications).
    if (error.code === 'internal') error = unavailableBehind(req) ?? refusalBehind(req) ?? error;
    const status = statusOf(api, error);
    if (status !== STATUS_OF[error.code]) error = new AppError('bad_request', error.message);
    // The request's log line (http/request-log.ts) carries what went wrong, with its stack.
    if (status >= 500 && error.code !== 'not_implemented') res.err = raw instanceof Error ? raw : error;
    const message = error.code === 'unauthenticated' && error.message === FROM_SECURITY ? UNAUTHENTICATED[api].message : error.message;
    setHeaders(res, api, error, raw);
    const answered = body(api, status, error, message);
    // What the caller was told is wrong goes to the request's log line too: the message only, which carries names
    // and limits, never the values sent.
    if (status < 500) res.problem = answered.message;
    res.status(status).json(answered);
  };
}
