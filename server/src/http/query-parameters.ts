import { parse as parseQueryString } from 'node:querystring';
import type { Request, RequestHandler } from 'express';

/** A request problem in the validator's form, so that errors.ts renders it with the validator's own. */
export interface QueryProblem {
  path: string;
  message: string;
}

interface Parameter {
  name?: string;
  in?: string;
  allowEmptyValue?: boolean;
  $ref?: string;
  schema?: { type?: string };
}

/**
 * An integer written as people and the public service's clients write one: decimal digits, an optional minus.
 * The validator coerces query text with `Number()`, which also reads `0x2`, `0b1`, `2e0`, `2.0` and ` 2` as
 * integers; a value that means something else in every other client's parser is refused instead.
 */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * Query parameters an operation does not declare, and declared ones sent empty, as problems of the request.
 *
 * The validator finds these too, but throws at the first one before it validates anything else, so a request
 * with one unknown parameter and a bad value heard only of the first. Here they are found beside the validator
 * (which is told to let unknown parameters through) and listed with whatever it found: every problem in one 400.
 */
export class QueryParameterCheck {
  /** Per operation object of the validator's document: the query parameters it declares, by name. */
  private readonly declared = new WeakMap<object, Map<string, Parameter>>();

  constructor(private readonly openapi: Record<string, unknown>) {}

  problems(req: Request): QueryProblem[] {
    const operation = req.openapi?.schema as { parameters?: Parameter[] } | undefined;
    if (!operation || !req.query) return [];
    const declared = this.declaredBy(operation);
    const problems: QueryProblem[] = [];
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      const parameter = declared.get(name);
      if (!parameter) problems.push({ path: `/query/${name}`, message: `Unknown query parameter '${name}'` });
      else if (value === '' && !parameter.allowEmptyValue) problems.push({ path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` });
    }
    problems.push(...this.nonDecimalIntegers(req, declared));
    return problems;
  }

  /**
   * Integer parameters whose text is not decimal digits. Read from the URL itself, decoded as the app's query
   * parser decodes it: the validator has coerced the values in `req.query` by then.
   */
  private nonDecimalIntegers(req: Request, declared: Map<string, Parameter>): QueryProblem[] {
    const queryAt = req.originalUrl.indexOf('?');
    if (queryAt < 0) return [];
    const problems: QueryProblem[] = [];
    for (const [name, raw] of Object.entries(parseQueryString(req.originalUrl.slice(queryAt + 1)))) {
      if (declared.get(name)?.schema?.type !== 'integer') continue;
      for (const text of Array.isArray(raw) ? raw : [raw ?? '']) {
        if (text !== '' && !DECIMAL_INTEGER.test(text)) {
          problems.push({ path: `/query/${name}`, message: 'must be an integer written in decimal digits' });
          break;
        }
      }
    }
    return problems;
  }

  /** After validation passed: refuses the request when its query alone has problems. */
  refuse(): RequestHandler {
    return (req, _res, next) => {
      const problems = this.problems(req);
      if (problems.length === 0) return next();
      next(Object.assign(new Error(problems[0]!.message), { status: 400, errors: problems }));
    };
  }

  private declaredBy(operation: { parameters?: Parameter[] }): Map<string, Parameter> {
    let declared = this.declared.get(operation);
    if (!declared) {
      declared = new Map();
      for (const parameter of (operation.parameters ?? []).map((p) => this.resolve(p))) {
        if (parameter.in === 'query' && parameter.name) declared.set(parameter.name, parameter);
      }
      this.declared.set(operation, declared);
    }
    return declared;
  }

  /** `#/components/parameters/X` → the parameter it names (the specs share paging and filter parameters). */
  private resolve(parameter: Parameter): Parameter {
    const ref = parameter.$ref;
    if (!ref?.startsWith('#/')) return parameter;
    let target: unknown = this.openapi;
    for (const key of ref.slice(2).split('/')) target = (target as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
    return (target as Parameter | undefined) ?? parameter;
  }
}
