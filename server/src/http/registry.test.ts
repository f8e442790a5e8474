import { describe, expect, it } from '@jest/globals';
import type { ApiDocument, OperationInfo } from './apis.js';
import { bindOperations, dispatcher, type HandlerRequest } from './registry.js';

const operation = (operationId: string, statuses: string[]): OperationInfo => ({
  operationId,
  method: 'get',
  path: `/${operationId}`,
  statuses,
  responseMediaTypes: {},
  fixedResponseHeaders: {},
  jsonBodyRequired: false,
});

const api = (operations: OperationInfo[]): ApiDocument => ({
  name: 'compliance',
  basePath: '/v0',
  openapi: {},
  swaggerYaml: Buffer.from(''),
  operations,
});

const handler = async () => ({ status: 200, body: {} });

describe('binding operations to handlers', () => {
  it('binds every implemented operation and answers pending ones with 501', async () => {
    const table = bindOperations(api([operation('listThings', ['200', '400']), operation('getThing', ['200', '501'])]), { listThings: handler });
    expect([...table.keys()]).toEqual(['listThings', 'getThing']);
    await expect(table.get('getThing')!.handler({} as never, {} as never)).rejects.toMatchObject({ code: 'not_implemented', message: 'getThing is not implemented yet' });
  });

  it('refuses to start when an operation has no handler', () => {
    expect(() => bindOperations(api([operation('listThings', ['200'])]), {})).toThrow(/listThings \(GET \/v0\/listThings\) has no handler/);
  });

  it('refuses a handler that matches no operation', () => {
    expect(() => bindOperations(api([]), { listThings: handler })).toThrow(/handler listThings matches no operation/);
  });

  it('refuses a handler for an operation the spec still declares 501', () => {
    expect(() => bindOperations(api([operation('getThing', ['200', '501'])]), { getThing: handler })).toThrow(/still declares it 501/);
  });
});

describe('dispatching a request to its handler', () => {
  it('hands the handler the request, with no accessor of its own', async () => {
    let received: HandlerRequest<unknown, unknown> | undefined;
    const table = bindOperations(api([operation('listThings', ['200'])]), {
      listThings: async (request: HandlerRequest<unknown, unknown>) => {
        received = request;
        return { status: 200, body: { ok: true } };
      },
    });
    const req = {
      openapi: { schema: { operationId: 'listThings' }, pathParams: { thing: 'one' } },
      query: { max_items: 5 },
      body: undefined,
      principal: { orgId: 'org-1' },
      id: 'request-1',
      ip: '10.0.0.7',
      headers: { cookie: 'other=1; session=abc%20d' },
      accepts: (types: string[]) => types[1],
    };
    const answered: unknown[] = [];
    const res = {
      status: () => res,
      json: (body: unknown) => answered.push(body),
    };
    await dispatcher(table, {})(req as never, res as never, () => undefined);
    expect(answered).toEqual([{ ok: true }]);
    expect(received).toMatchObject({ path: { thing: 'one' }, query: { max_items: 5 }, body: undefined, principal: { orgId: 'org-1' }, requestId: 'request-1' });
    expect(received!.remoteAddress).toBe('10.0.0.7');
    expect(received!.cookie('session')).toBe('abc d');
    expect(received!.cookie('missing')).toBeUndefined();
    expect(received!.preferredMediaType('application/yaml', 'application/json')).toBe('application/json');
    // A getter of the object itself is an accessor pair, which V8 places in the old generation: pointing at a
    // closure over the request, it kept every request and its answer alive through young-generation collections
    // until the next full one. The getter belongs on a prototype.
    const accessors = Object.entries(Object.getOwnPropertyDescriptors(received)).filter(([, descriptor]) => descriptor.get !== undefined);
    expect(accessors.map(([name]) => name)).toEqual([]);
  });
});
