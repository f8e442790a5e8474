import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

/*
 * express-openapi-validator 5.6.2 waits, in each of its middlewares and on every request, for the promise of its
 * loaded spec (`pContext.then(...)`), although that promise settled before the first request was answered: each
 * wait is a promise and a turn of the microtask queue per middleware per request. Two of them do nothing else once
 * the spec is loaded:
 *   - the path-parameters middleware, which installs `app.param` handlers on the first request and then only goes
 *     on;
 *   - the request-validation middleware, which builds the request validator on the first request and then only
 *     hands each request to it.
 * Here both go straight on once the validator has done that first request's work itself: the first request (and
 * any request before the spec has loaded, or if it failed to load) takes the validator's own path, so its errors
 * stay its own. A request the validator refuses throws, as it did inside its promise, and goes to the error
 * handlers either way.
 */

const PATH_PARAMS_MIDDLEWARE = 'pathParamsMiddleware';
const REQUEST_MIDDLEWARE = 'requestMiddleware';

/** The validator instance the last `OpenApiValidator.middleware(...)` call made (the package keeps it there). */
interface ValidatorInstance {
  requestValidationMiddleware(apiDoc: unknown): RequestHandler;
}

/**
 * `OpenApiValidator.middleware(options)` with the promise waits above removed once the spec is loaded; its
 * handlers as they come when they are not the ones this was written for.
 */
export function openApiValidatorMiddleware(options: Parameters<typeof OpenApiValidator.middleware>[0]): RequestHandler[] {
  const handlers = OpenApiValidator.middleware(options) as RequestHandler[];
  const instance = (OpenApiValidator.middleware as { _oav?: ValidatorInstance })._oav;
  const pathParams = handlers.findIndex((handler) => handler.name === PATH_PARAMS_MIDDLEWARE);
  const request = handlers.findIndex((handler) => handler.name === REQUEST_MIDDLEWARE);
  if (pathParams < 0 || request < 0 || typeof instance?.requestValidationMiddleware !== 'function') return handlers;

  let loaded = false;
  const originalPathParams = handlers[pathParams]!;
  const pathParamsOnce: RequestHandler = (req, res, next) => {
    if (loaded) return next();
    return originalPathParams(req, res, (error?: unknown) => {
      // Gone through without an error: the spec is loaded and the parameters installed.
      if (error === undefined) loaded = true;
      next(error as Error | undefined);
    });
  };

  // The request validator the validator builds for itself, kept as it is built (on its first request).
  let validate: RequestHandler | undefined;
  const build = instance.requestValidationMiddleware;
  instance.requestValidationMiddleware = function built(this: ValidatorInstance, apiDoc: unknown) {
    validate = build.call(this, apiDoc);
    return validate;
  };
  const originalRequest = handlers[request]!;
  const requestDirect: RequestHandler = (req, res, next) => (validate ? validate(req, res, next) : originalRequest(req, res, next));

  Object.defineProperty(pathParamsOnce, 'name', { value: PATH_PARAMS_MIDDLEWARE });
  Object.defineProperty(requestDirect, 'name', { value: REQUEST_MIDDLEWARE });
  return handlers.map((handler, i) => (i === pathParams ? pathParamsOnce : i === request ? requestDirect : handler));
}
