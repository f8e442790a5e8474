import { describe, it } from '@jest/globals';
import { expect } from '../../../test/expect.js';
import { loadApiDocument } from '../apis.js';
import type { Services } from '../../services.js';
import { readAccessDeclarations } from './access-declarations.js';
import { authorizeCompliance } from './authorization.js';

/** A one-path document: GET /things/{thing_id}?environment_id=… and a POST with a JSON body, each with `access`. */
function documentWith(getAccess: unknown, postAccess: unknown): Record<string, unknown> {
  const withAccess = (operation: Record<string, unknown>, access: unknown) => (access === undefined ? operation : { ...operation, 'x-access': access });
  return {
    openapi: '3.0.0',
    components: {
      parameters: { environment_id: { name: 'environment_id', in: 'query', schema: { type: 'string' } } },
      schemas: { Input: { type: 'object', properties: { environments: { type: 'array' }, policy: { type: 'string' } } } },
    },
    paths: {
      '/things/{thing_id}': {
        parameters: [{ name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } }],
        get: withAccess({ operationId: 'getThing', parameters: [{ $ref: '#/components/parameters/environment_id' }], responses: {} }, getAccess),
        post: withAccess(
          { operationId: 'changeThing', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Input' } } } }, responses: {} },
          postAccess,
        ),
      },
    },
  };
}

describe('x-access declarations', () => {
  it('reads where a request names environments, from path and query parameters and body fields', () => {
    const { declarations, problems } = readAccessDeclarations(
      documentWith(
        { level: 'read', environments: [{ scan: 'path.thing_id' }, { environment: 'query.environment_id' }] },
        { level: 'manage', environments: [{ environment: 'body.environments' }, { environment: '*' }], hands_out: { policy: 'body.policy', environments: 'body.environments' } },
      ),
    );
    expect(problems).toEqual([]);
    expect(declarations.get('getThing')).toEqual({
      public: false,
      level: 'read',
      listing: false,
      sources: [
        { subject: 'scan', at: { in: 'path', name: 'thing_id' } },
        { subject: 'environment', at: { in: 'query', name: 'environment_id' } },
      ],
      handsOut: {},
    });
    expect(declarations.get('changeThing')).toMatchObject({
      sources: [{ subject: 'environment', at: { in: 'body', name: 'environments' } }, { subject: 'environment', at: 'all' }],
      handsOut: { group: { policy: { in: 'body', name: 'policy' }, environments: { in: 'body', name: 'environments' } } },
    });
  });

  it('names every operation without a declaration, and every declaration that names what the request lacks', () => {
    expect(readAccessDeclarations(documentWith(undefined, 'public')).problems).toEqual(['getThing: no x-access']);
    expect(
      readAccessDeclarations(
        documentWith(
          { level: 'owner', environments: [{ scan: 'query.scan_id' }, { group: 'body.group_ids' }, { scan: '*' }], listing: 'yes' },
          { level: 'edit', environments: [{ environment: 'body.environment_ids' }], hands_out: { policy: 'body.policy' }, extra: 1 },
        ),
      ).problems,
    ).toEqual([
      'getThing: x-access.level must be one of results, read, edit, contribute, manage',
      'getThing: x-access.listing must be true or false',
      'getThing: x-access.environments[0]: the operation has no query parameter scan_id',
      'getThing: x-access.environments[1] must be one of environment, scan, notification, rule_test_output, naming where the ids are',
      'getThing: x-access.environments[2]: only environment may be "*"',
      'changeThing: x-access.extra is not a key of x-access',
      'changeThing: x-access.environments[0]: the operation has no body field environment_ids',
      'changeThing: x-access.hands_out: policy and environments go together',
    ]);
  });

  it('finds a valid declaration on every operation of the compliance spec', () => {
    const api = loadApiDocument('compliance');
    const { declarations, problems } = readAccessDeclarations(api.openapi);
    expect(problems).toEqual([]);
    expect([...declarations.keys()].sort()).toEqual(api.operations.map((op) => op.operationId).sort());
  });

  it('keeps the server from starting when an operation has none', () => {
    const api = loadApiDocument('compliance');
    const paths = { ...(api.openapi.paths as object), '/purge': { post: { operationId: 'purgeEverything', responses: {} } } };
    expect(() => authorizeCompliance({ ...api, openapi: { ...api.openapi, paths } }, {} as Services)).toThrow(/purgeEverything: no x-access/);
  });
});
