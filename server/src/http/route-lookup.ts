import { createRequire } from 'node:module';
import type { Request, RequestHandler } from 'express';
import type { ApiDocument } from './apis.js';

/*
 * express-openapi-validator 5.6.2 finds the operation of a request by compiling the path pattern of every route
 * of the spec again on each request (its metadata middleware; upstream pull request #1217 caches them). Here the
 * patterns are compiled once, with the validator's own path-to-regexp, in the validator's own route order, and the
 * operation's metadata is the very object the validator produced for an earlier request of the same route and
 * method. Anything not seen before — a first request, a method the path lacks (405), a path no route matches
 * (404), a malformed escape (400) — goes to the validator's middleware, so every answer it gives stays its own.
 */

const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { pathToRegexp } = fromValidator('path-to-regexp') as {
  pathToRegexp(path: string, options: { sensitive: boolean; strict: boolean }): { regexp: RegExp; keys: { name: string }[] };
};
const { OpenApiSpecLoader, sortRoutes } = fromValidator('./framework/openapi.spec.loader') as {
  OpenApiSpecLoader: { prototype: { toExpressParams(part: string): string } };
  sortRoutes(a: { expressRoute: string }, b: { expressRoute: string }): number;
};

/** The name the validator gives its route-matching middleware (the second of the handlers it returns). */
const METADATA_MIDDLEWARE = 'metadataMiddleware';

type OpenApiMetadata = NonNullable<Request['openapi']> & { _responseSchema?: unknown };

interface Route {
  expressRoute: string;
  regexp: RegExp;
  keys: string[];
  /** By HTTP method (upper case): the validator's metadata for this route, once it has produced it. */
  seen: Map<string, Omit<OpenApiMetadata, 'pathParams'>>;
}

/** The routes as the validator orders them: static before dynamic, one per path. */
function routesOf(api: ApiDocument): Route[] {
  const base = api.basePath.replace(/\/$/, '');
  const paths = Object.keys((api.openapi.paths ?? {}) as Record<string, unknown>);
  const expressRoutes = paths.map((path) => `${base}${path}`.split(':').map(OpenApiSpecLoader.prototype.toExpressParams).join('\\:'));
  const sorted = [...new Set(expressRoutes)].map((expressRoute) => ({ expressRoute })).sort(sortRoutes);
  return sorted.map(({ expressRoute }) => {
    // The validator compiles with the app's settings; createApp leaves both at Express's default (off).
    const { regexp, keys } = pathToRegexp(expressRoute, { sensitive: false, strict: false });
    return { expressRoute, regexp, keys: keys.map((key) => key.name), seen: new Map() };
  });
}

/**
 * The validator's handlers with its route matching replaced by precompiled matching; unchanged when the
 * validator's handlers are not the ones this was written for.
 */
export function withPrecompiledRoutes(validator: RequestHandler[], api: ApiDocument): RequestHandler[] {
  const index = validator.findIndex((handler) => handler.name === METADATA_MIDDLEWARE);
  if (index < 0) return validator;
  const original = validator[index]!;
  const routes = routesOf(api);

  const lookup: RequestHandler = (req, res, next) => {
    // The validator matches the whole path, base path included, without the query.
    const path = req.originalUrl.split('?')[0]!;
    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of routes) {
      match = candidate.regexp.exec(path);
      if (match) {
        route = candidate;
        break;
      }
    }
    const known = route?.seen.get(req.method);
    if (route && match && known) {
      let values: string[] | undefined;
      try {
        values = match.slice(1).map(decodeURIComponent);
      } catch {
        values = undefined;
      }
      if (values) {
        const pathParams: Record<string, string> = {};
        route.keys.forEach((key, i) => (pathParams[key] = values[i]!));
        const openapi: OpenApiMetadata = { expressRoute: known.expressRoute, openApiRoute: known.openApiRoute, pathParams, schema: known.schema, serial: known.serial };
        if ('_responseSchema' in known) openapi._responseSchema = known._responseSchema;
        req.openapi = openapi;
        req.params = pathParams;
        return next();
      }
    }
    return original(req, res, (error?: unknown) => {
      const found = req.openapi as OpenApiMetadata | undefined;
      // Learned only when the validator chose the route this matcher chose, so both always agree.
      if (error === undefined && route && found?.schema && found.expressRoute === route.expressRoute) {
        const { pathParams: _pathParams, ...metadata } = found;
        route.seen.set(req.method, metadata);
      }
      next(error as Error | undefined);
    });
  };
  Object.defineProperty(lookup, 'name', { value: 'precompiledRouteLookup' });
  return validator.map((handler, i) => (i === index ? lookup : handler));
}
