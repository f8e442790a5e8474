import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestHandler } from 'express';
import { AppError } from '../domain/errors.js';
import { HTTP_METHODS, type ApiDocument } from './apis.js';

/**
 * The stateful mock steered by the `Prefer` header, as Prism spells it (RFC 7240), so that a frontend can show its
 * unhappy paths against the mock that keeps what it creates:
 * - `Prefer: code=<status>` answers that status as the spec declares it for the operation — its example body
 *   (every declared response has one: the spec house rules), its declared headers — and changes nothing;
 * - `Prefer: example=<name>` picks the example of that name (alone: of the operation's first 2xx);
 * - `Prefer: delay=<ms>` waits that long first (at most MAX_PREFERRED_DELAY_MS), then answers as asked, or as
 *   usual.
 * Preferences are separated by commas; others (Prism's `dynamic`) are ignored, as RFC 7240 asks. Only the mock
 * mode mounts this: the real server ignores `Prefer`. It runs once the request was authenticated and validated, so
 * that a call the API would refuse is refused as usual.
 */
export const MAX_PREFERRED_DELAY_MS = 30_000;

interface Preferences {
  code?: number;
  example?: string;
  delayMs?: number;
}

interface DeclaredResponse {
  mediaType?: string;
  /** Example bodies by name, in the spec's order. */
  examples: Map<string, unknown>;
  headers: Record<string, string>;
}

type Json = Record<string, unknown>;

/** Reads the preferences this mock knows from a Prefer header; a malformed one is a 400 saying why. */
export function preferencesOf(header: string): Preferences {
  const preferences: Preferences = {};
  for (const part of header.split(/[,;]/)) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName!.trim().toLowerCase();
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
    if (name === 'code') {
      if (!/^[1-5][0-9]{2}$/.test(value)) throw AppError.invalid('Prefer', `code must be an HTTP status of three digits, not '${value.slice(0, 20)}'`);
      preferences.code = Number(value);
    } else if (name === 'example') {
      if (value === '') throw AppError.invalid('Prefer', 'example must name an example');
      preferences.example = value;
    } else if (name === 'delay') {
      if (!/^[0-9]{1,6}$/.test(value) || Number(value) > MAX_PREFERRED_DELAY_MS) {
        throw AppError.invalid('Prefer', `delay must be a whole number of milliseconds from 0 to ${MAX_PREFERRED_DELAY_MS}, not '${value.slice(0, 20)}'`);
      }
      preferences.delayMs = Number(value);
    }
  }
  return preferences;
}

/** The value a declared header is sent with: its one allowed value, its example or default, or its least. */
function headerValue(header: Json): string {
  const schema = (header.schema ?? {}) as Json;
  const value = (schema.enum as unknown[] | undefined)?.[0] ?? header.example ?? schema.example ?? schema.default ?? schema.minimum ?? (schema.type === 'integer' || schema.type === 'number' ? 0 : '');
  return String(value);
}

/** Every operation's declared responses, by operationId and status, their references resolved. */
function declaredResponses(api: ApiDocument): Map<string, Map<number, DeclaredResponse>> {
  const document = api.openapi as Json;
  const components = ((document.components as Json | undefined)?.responses ?? {}) as Record<string, Json>;
  const resolve = (response: Json): Json => (typeof response.$ref === 'string' ? components[response.$ref.split('/').at(-1)!]! : response);
  const table = new Map<string, Map<number, DeclaredResponse>>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const responses = new Map<number, DeclaredResponse>();
      for (const [status, declared] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const response = resolve(declared);
        const [mediaType, content] = Object.entries((response.content ?? {}) as Record<string, Json>)[0] ?? [];
        const examples = new Map<string, unknown>();
        if (content) {
          for (const [name, example] of Object.entries((content.examples ?? {}) as Record<string, Json>)) examples.set(name, example.value);
          if (content.example !== undefined) examples.set('example', content.example);
          if (examples.size === 0) throw new Error(`${api.name} ${String(operation.operationId)} ${status}: a declared body without an example`);
        }
        const headers = Object.fromEntries(Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, header]) => [name, headerValue(header)]));
        responses.set(Number(status), { ...(mediaType !== undefined && { mediaType }), examples, headers });
      }
      table.set(String(operation.operationId), responses);
    }
  }
  return table;
}

/** A fault armed by `POST /mock/faults`: the operation answers `status` its next `times` calls. */
export interface MockFault {
  operation: string;
  status: number;
  times: number;
}

/** Calls one armed fault may cover at most. */
export const MAX_FAULT_TIMES = 1_000;

/**
 * The faults armed in this mock process, by operationId, across its APIs: `POST /mock/faults` arms one (replacing
 * that operation's earlier one), each call of the operation then answers the status as `Prefer: code=` would, until
 * `times` calls have; `DELETE /mock/faults` and a reset or scenario disarm them all.
 */
export class MockFaults {
  private readonly declared = new Map<string, { api: string; statuses: number[] }>();
  private readonly armed = new Map<string, MockFault>();

  constructor(apis: readonly ApiDocument[]) {
    for (const api of apis) {
      for (const [operationId, responses] of declaredResponses(api)) this.declared.set(operationId, { api: api.name, statuses: [...responses.keys()] });
    }
  }

  /** Arms what a client sent; anything else than a declared status of a known operation is a 400 saying why. */
  arm(sent: unknown): MockFault {
    const { operation, status, times = 1, ...rest } = (typeof sent === 'object' && sent !== null && !Array.isArray(sent) ? sent : {}) as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw AppError.invalid(unknown[0]!, 'is not a field of a fault; send operation, status and times');
    if (typeof operation !== 'string' || operation === '') throw AppError.invalid('operation', 'must name an operation by its operationId');
    const declared = this.declared.get(operation);
    if (!declared) throw AppError.invalid('operation', `'${operation.slice(0, 80)}' is not the operationId of an operation of the ${[...new Set([...this.declared.values()].map((d) => d.api))].join(', ')} APIs`);
    if (typeof status !== 'number' || !declared.statuses.includes(status)) {
      throw AppError.invalid('status', `must be a status ${operation} declares: ${declared.statuses.join(', ')}`);
    }
    if (typeof times !== 'number' || !Number.isInteger(times) || times < 1 || times > MAX_FAULT_TIMES) {
      throw AppError.invalid('times', `must be a whole number of calls from 1 to ${MAX_FAULT_TIMES}`);
    }
    const fault = { operation, status, times };
    this.armed.set(operation, { ...fault });
    return fault;
  }

  /** The faults still armed, with the calls each has left. */
  list(): MockFault[] {
    return [...this.armed.values()].map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.armed.clear();
  }

  /** The status this call of `operationId` answers, when a fault is armed for it; counts the call. */
  take(operationId: string): number | undefined {
    const fault = this.armed.get(operationId);
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times === 0) this.armed.delete(operationId);
    return fault.status;
  }
}

/** The mock's steering of one API: armed faults first, then the `Prefer` header. */
export function steeredByPrefer(api: ApiDocument, faults?: MockFaults): RequestHandler {
  const table = declaredResponses(api);
  return async (req, res, next) => {
    const operationId = req.openapi?.schema.operationId;
    const responses = operationId === undefined ? undefined : table.get(operationId);
    const faulted = responses && faults?.take(operationId!);
    const sent = req.headers.prefer;
    if (sent === undefined && faulted === undefined) return next();
    const preferences = sent === undefined ? {} : preferencesOf(Array.isArray(sent) ? sent.join(',') : sent);
    if (preferences.delayMs) await sleep(preferences.delayMs);
    const code = faulted ?? preferences.code;
    if (code === undefined && preferences.example === undefined) return next();
    if (!responses) return next();
    const declared = [...responses.keys()];
    const status = code ?? declared.find((candidate) => candidate >= 200 && candidate < 300) ?? declared[0]!;
    const response = responses.get(status);
    if (!response) throw AppError.invalid('Prefer', `code ${status} is not declared for ${operationId}, which declares ${declared.join(', ')}`);
    let body: unknown;
    if (response.mediaType !== undefined) {
      const names = [...response.examples.keys()];
      // A fault answers the status's first example, whatever example the header names for another status.
      const name = (faulted === undefined ? preferences.example : undefined) ?? names[0]!;
      if (!response.examples.has(name)) throw AppError.invalid('Prefer', `example '${name.slice(0, 40)}' is not one of ${operationId}'s ${status} examples: ${names.join(', ')}`);
      body = response.examples.get(name);
    }
    res.status(status).set(response.headers);
    if (response.mediaType === undefined) res.end();
    else if (response.mediaType === 'application/json') res.json(body);
    else res.type(response.mediaType).send(typeof body === 'string' ? body : JSON.stringify(body));
  };
}
