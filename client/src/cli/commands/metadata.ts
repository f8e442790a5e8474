import { unwrap } from '../../index.js';
import type { Group } from '../command.js';
import type { Provider } from '../schemas.js';
import { PROVIDERS } from './environments.js';

const PROVIDER_ARG = [{ name: 'provider', description: `the cloud provider: ${PROVIDERS.join(', ')}` }] as const;

export const metadata: Group = {
  name: 'metadata',
  api: 'compliance',
  summary: 'what the scanner supports: resource types and the permissions it needs',
  commands: [
    {
      name: 'resource-types',
      summary: 'the resource types a provider\'s environments can scan',
      args: PROVIDER_ARG,
      flags: { region: { type: 'string', value: '<region>', description: 'include the regional types of this region (`*` for all); default global types only' } },
      examples: ['compliance-conductor metadata resource-types provider_a --region us-east-1'],
      async run(ctx) {
        const region = ctx.string('region');
        const types = await unwrap(
          ctx.compliance().GET('/metadata/{provider}/resource_types', {
            params: { path: { provider: ctx.arg(0) as Provider }, ...(region !== undefined && { query: { region: region as never } }) },
          }),
        );
        const recommended = new Set(types.recommended_types);
        ctx.out.show(types, (t) =>
          ctx.out.table(t.resource_types, [
            { header: 'RESOURCE TYPE', value: (type) => type },
            { header: 'RECOMMENDED', value: (type) => recommended.has(type) },
          ]),
        );
      },
    },
    {
      name: 'permissions',
      summary: 'the permissions the scanner\'s role needs (the policy documents are in --json)',
      args: [{ name: 'provider', description: 'provider_a or provider_a_gov (the providers with a role policy)' }],
      flags: {
        'survey-types': { type: 'string', multiple: true, value: '<type,...>', description: 'types to be able to scan (default: every supported type)' },
        'remediate-types': { type: 'string', multiple: true, value: '<type,...>', description: 'types to be able to remediate' },
      },
      examples: ['compliance-conductor metadata permissions provider_a --survey-types PROVA.S3.Bucket --json'],
      async run(ctx) {
        const survey_resource_type = ctx.optionalStrings('survey-types');
        const remediate_resource_type = ctx.optionalStrings('remediate-types');
        const permissions = await unwrap(
          ctx.compliance().GET('/metadata/{provider}/permissions', {
            params: {
              path: { provider: ctx.arg(0) as 'provider_a' | 'provider_a_gov' },
              query: { ...(survey_resource_type && { survey_resource_type }), ...(remediate_resource_type && { remediate_resource_type }) },
            },
          }),
        );
        ctx.out.show(permissions, (p) => {
          const a = p.provider_a;
          const rows = [...a.survey_actions.map((action) => ({ purpose: 'survey', action })), ...a.remediate_actions.map((action) => ({ purpose: 'remediate', action }))];
          ctx.out.table(rows, [
            { header: 'PURPOSE', value: (r) => r.purpose },
            { header: 'ACTION', value: (r) => r.action },
          ]);
        });
      },
    },
  ],
};
