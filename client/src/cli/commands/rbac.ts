import { attachRbacPolicy, unwrap } from '../../index.js';
import type { Group } from '../command.js';
import { OUTPUT_FLAG, saveDownload } from '../download.js';
import { archiveAt } from '../input.js';
import { time, type Output } from '../output.js';
import type { RbacStatus } from '../schemas.js';

function statusFields(out: Output, s: RbacStatus): void {
  out.fields([
    ['Applied', s.applied],
    ['Attached', time(s.attached_at)],
    ['SHA256', s.sha256],
    ['Users', s.users],
  ]);
}

export const rbac: Group = {
  name: 'rbac',
  api: 'conductor',
  summary: 'the access-control policy and its users',
  commands: [
    {
      name: 'status',
      summary: 'whether a policy is attached, and how many users it declares',
      examples: ['compliance-conductor rbac status'],
      async run(ctx) {
        const status = await unwrap(ctx.conductor().GET('/rbac/status'));
        ctx.out.show(status, (s) => statusFields(ctx.out, s));
      },
    },
    {
      name: 'attach',
      summary: 'attach and apply a policy (a directory holding policy.yaml, or a tar / tar.gz)',
      args: [{ name: 'policy', description: 'a directory holding policy.yaml, or a tar / tar.gz archive of it' }],
      examples: ['compliance-conductor rbac attach examples/conductor/policy'],
      async run(ctx) {
        const status = await attachRbacPolicy(ctx.conductor(), await archiveAt(ctx.arg(0)));
        ctx.out.show(status, (s) => statusFields(ctx.out, s));
      },
    },
    {
      name: 'detach',
      summary: 'detach the policy: only root can sign in afterwards',
      examples: ['compliance-conductor rbac detach'],
      async run(ctx) {
        const status = await unwrap(ctx.conductor().DELETE('/rbac'));
        ctx.out.show(status, (s) => statusFields(ctx.out, s));
      },
    },
    {
      name: 'download',
      summary: 'download the attached policy\'s archive',
      flags: OUTPUT_FLAG,
      examples: ['compliance-conductor rbac download --output policy.tar'],
      async run(ctx) {
        const data = await unwrap(ctx.conductor().GET('/rbac/archive', { parseAs: 'arrayBuffer' }));
        await saveDownload(ctx, new Uint8Array(data), 'the rbac policy');
      },
    },
    {
      name: 'users',
      summary: 'list the users the policy declares, and whether each has a secret',
      examples: ['compliance-conductor rbac users'],
      async run(ctx) {
        const users = await unwrap(ctx.conductor().GET('/rbac/users'));
        ctx.out.show(users, (u) =>
          ctx.out.table(u.items, [
            { header: 'NAME', value: (user) => user.name },
            { header: 'HAS SECRET', value: (user) => user.has_secret },
            { header: 'SECRET CREATED', value: (user) => time(user.secret_created_at) },
          ]),
        );
      },
    },
    {
      name: 'new-secret',
      summary: 'generate a new secret for a user (shown only this once; the old one stops working)',
      args: [{ name: 'user', description: 'a user the policy declares' }],
      examples: ['compliance-conductor rbac new-secret deployer --json'],
      async run(ctx) {
        const secret = await unwrap(ctx.conductor().PUT('/rbac/users/{user}/secret', { params: { path: { user: ctx.arg(0) } } }));
        ctx.out.show(secret, (s) => ctx.out.fields([['User', s.user], ['Secret', s.secret]]));
      },
    },
  ],
};
