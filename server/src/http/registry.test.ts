import { describe, expect, it } from '@jest/globals';
import type { ApiDocument, OperationInfo } from './apis.js';
import { bindOperations } from './registry.js';

const operation = (operationId: string, statuses: string[]): OperationInfo => ({
  operationId,
  method: 'get',
  path: `/${operationId}`,
  statuses,
  responseMediaTypes: {},
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
