import type { Request, RequestHandler } from 'express';
import type { ApiDocument } from './apis.js';
import type { SecurityHandler } from './security.js';

/*
 * express-openapi-validator 5.6.2 checks a request's credentials by building, on every request, an object per
 * security requirement and per scheme, three levels of promises and the arrays of their results, before calling
 * the security handlers this server gives it. Here the requirement of each operation is read once, and when the
 * operation has a single requirement whose handlers all pass, the request goes on at once. Anything else — no
 * requirement met, several requirements to choose from, a handler that throws — goes to the validator's security
 * middleware, so every refusal stays its own. Each handler runs at most once per request: the validator asking
 * again gets the answer already given (or the same error).
 */

/** The name the validator gives its security middleware (one of the handlers it returns). */
const SECURITY_MIDDLEWARE = 'securityMiddleware';

type Requirement = Record<string, string[]>;

/** Each handler answering at most once per request, whoever asks. */
export function oncePerRequest(handlers: Record<string, SecurityHandler>): Record<string, SecurityHandler> {
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => {
      const answers = new WeakMap<Request, Promise<boolean>>();
      const once: SecurityHandler = (req) => {
        let answer = answers.get(req);
        if (!answer) {
          answer = handler(req);
          answers.set(req, answer);
        }
        return answer;
      };
      return [name, once];
    }),
  );
}

type Precondition = (req: Request) => boolean;

/**
 * What the validator checks of each scheme before it calls the scheme's handler: for HTTP Basic an Authorization
 * header that names the scheme (in any case, anywhere in it, as the validator looks), for an API key in a header
 * that header. Schemes of other kinds are not in the map.
 */
function preconditionsOfSchemes(api: ApiDocument): Map<string, Precondition> {
  type Scheme = { type: string; in?: string; name?: string; scheme?: string };
  const schemes = (api.openapi.components as { securitySchemes?: Record<string, Scheme> } | undefined)?.securitySchemes ?? {};
  const preconditions = new Map<string, Precondition>();
  for (const [name, scheme] of Object.entries(schemes)) {
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic') {
      preconditions.set(name, (req) => req.headers.authorization?.toLowerCase().includes('basic') === true);
    } else if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) {
      const header = scheme.name.toLowerCase();
      preconditions.set(name, (req) => Boolean(req.headers[header]));
    }
  }
  return preconditions;
}

/**
 * The validator's handlers with its security middleware given a fast path for requests whose one requirement is
 * met; unchanged when the validator's handlers are not the ones this was written for. `handlers` must be the
 * very handlers the validator was given, made `oncePerRequest`.
 */
export function withPrecompiledSecurity(validator: RequestHandler[], api: ApiDocument, handlers: Record<string, SecurityHandler>): RequestHandler[] {
  const index = validator.findIndex((handler) => handler.name === SECURITY_MIDDLEWARE);
  if (index < 0) return validator;
  const original = validator[index]!;
  const preconditions = preconditionsOfSchemes(api);
  const documentSecurity = api.openapi.security as Requirement[] | undefined;
  // By operation: the handlers (with the header each needs) of its one requirement; null where the fast path
  // does not apply (several requirements, a scheme it does not know).
  const plans = new Map<object, Array<{ handler: SecurityHandler; precondition: Precondition }> | null>();
  const planOf = (operation: { security?: Requirement[] }) => {
    const security = operation.security ?? documentSecurity;
    if (!security || security.length !== 1) return null;
    const plan: Array<{ handler: SecurityHandler; precondition: Precondition }> = [];
    for (const name of Object.keys(security[0]!)) {
      const handler = handlers[name];
      const precondition = preconditions.get(name);
      if (!handler || !precondition) return null;
      plan.push({ handler, precondition });
    }
    return plan.length > 0 ? plan : null;
  };

  const fast: RequestHandler = (req, res, next) => {
    const operation = req.openapi?.schema as { security?: Requirement[] } | undefined;
    if (!operation || !req.openapi?.openApiRoute) return original(req, res, next);
    let plan = plans.get(operation);
    if (plan === undefined) plans.set(operation, (plan = planOf(operation)));
    if (!plan || !plan.every(({ precondition }) => precondition(req))) return original(req, res, next);
    const passed = plan.length === 1 ? plan[0]!.handler(req).then((ok) => ok === true) : Promise.all(plan.map(({ handler }) => handler(req))).then((all) => all.every((ok) => ok === true));
    return passed.then(
      (ok) => (ok ? next() : original(req, res, next)),
      () => original(req, res, next),
    );
  };
  Object.defineProperty(fast, 'name', { value: 'precompiledSecurity' });
  return validator.map((handler, i) => (i === index ? fast : handler));
}
