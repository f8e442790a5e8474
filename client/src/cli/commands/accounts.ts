import { unwrap } from '../../index.js';
import type { Group } from '../command.js';
import { BODY_FLAGS, defined, jsonBody } from '../input.js';
import { time, type Output } from '../output.js';
import type { Account, AccountInput } from '../schemas.js';
import { PROVIDERS } from './environments.js';

function accountTable(out: Output, items: readonly Account[]): void {
  out.table(items, [
    { header: 'NAME', value: (a) => a.name },
    { header: 'PROVIDER', value: (a) => a.provider },
    { header: 'ACCOUNT ID', value: (a) => a.account_id },
    { header: 'PROCESSES', value: (a) => a.process_count, align: 'right' },
    { header: 'CREATED', value: (a) => time(a.created_at) },
  ]);
}

export const accounts: Group = {
  name: 'accounts',
  api: 'conductor',
  summary: 'the cloud accounts the conductor manages processes in',
  commands: [
    {
      name: 'list',
      summary: 'list the accounts',
      examples: ['compliance-conductor accounts list'],
      async run(ctx) {
        const list = await unwrap(ctx.conductor().GET('/accounts'));
        ctx.out.show(list, (l) => accountTable(ctx.out, l.items));
      },
    },
    {
      name: 'add',
      summary: 'start managing an account',
      description: 'The body is the API\'s AccountInput, from --body or --file, with the flags applied over it.',
      flags: {
        ...BODY_FLAGS,
        name: { type: 'string', value: '<name>', description: 'the account\'s name in the conductor (lower case, digits, dashes)' },
        provider: { type: 'string', value: '<provider>', description: `the cloud provider: ${PROVIDERS.join(', ')}` },
        'account-id': { type: 'string', value: '<id>', description: 'the provider\'s account id (12 digits, or a provider_b subscription id)' },
      },
      examples: ['compliance-conductor accounts add --name prod-main --provider provider_a --account-id 123456789012'],
      async run(ctx) {
        const body = await jsonBody(ctx);
        Object.assign(body, defined({ name: ctx.string('name'), provider: ctx.choice('provider', PROVIDERS), account_id: ctx.string('account-id') }));
        const account = await unwrap(ctx.conductor().POST('/accounts', { body: body as AccountInput }));
        ctx.out.show(account, (a) => accountTable(ctx.out, [a]));
      },
    },
    {
      name: 'remove',
      summary: 'stop managing an account (nothing is deleted in the cloud)',
      args: [{ name: 'account', description: 'the account\'s name or account id' }],
      examples: ['compliance-conductor accounts remove prod-main'],
      async run(ctx) {
        const removed = await unwrap(ctx.conductor().DELETE('/accounts/{account}', { params: { path: { account: ctx.arg(0) } } }));
        ctx.out.show(removed, (r) => ctx.out.line(`${r.status} account ${r.name}.`));
      },
    },
  ],
};
