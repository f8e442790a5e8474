import { addValidation, unwrap } from '../../index.js';
import type { Group } from '../command.js';
import { OUTPUT_FLAG, saveDownload } from '../download.js';
import { archiveAt } from '../input.js';
import { time, type Output } from '../output.js';
import type { ValidationLibrary } from '../schemas.js';

function libraryTable(out: Output, items: readonly ValidationLibrary[]): void {
  out.table(items, [
    { header: 'NAME', value: (v) => v.name },
    { header: 'RULES', value: (v) => v.rule_count, align: 'right' },
    { header: 'SIZE', value: (v) => v.size, align: 'right' },
    { header: 'SHA256', value: (v) => v.sha256 },
    { header: 'CREATED', value: (v) => time(v.created_at) },
  ]);
}

const NAME_ARG = { name: 'name', description: 'the validation library\'s name' } as const;

export const validations: Group = {
  name: 'validations',
  api: 'conductor',
  summary: 'validation libraries: CEL rules every composition must pass',
  commands: [
    {
      name: 'list',
      summary: 'list the validation libraries',
      flags: { prefix: { type: 'string', value: '<prefix>', description: 'only libraries whose name starts with it' } },
      examples: ['compliance-conductor validations list --prefix base'],
      async run(ctx) {
        const prefix = ctx.string('prefix');
        const list = await unwrap(ctx.conductor().GET('/validations', { params: { query: { ...(prefix !== undefined && { prefix }) } } }));
        ctx.out.show(list, (l) => libraryTable(ctx.out, l.items));
      },
    },
    {
      name: 'upload',
      summary: 'add a validation library (a directory holding rules.yaml, or a tar / tar.gz)',
      args: [NAME_ARG, { name: 'rules', description: 'a directory holding rules.yaml, or a tar / tar.gz archive of it' }],
      examples: ['compliance-conductor validations upload baseline examples/conductor/validation'],
      async run(ctx) {
        const library = await addValidation(ctx.conductor(), ctx.arg(0), await archiveAt(ctx.arg(1)));
        ctx.out.show(library, (v) => libraryTable(ctx.out, [v]));
      },
    },
    {
      name: 'get',
      summary: 'show a validation library',
      args: [NAME_ARG],
      examples: ['compliance-conductor validations get baseline'],
      async run(ctx) {
        const library = await unwrap(ctx.conductor().GET('/validations/{name}', { params: { path: { name: ctx.arg(0) } } }));
        ctx.out.show(library, (v) => libraryTable(ctx.out, [v]));
      },
    },
    {
      name: 'download',
      summary: 'download a validation library\'s archive, as it was uploaded',
      args: [NAME_ARG],
      flags: OUTPUT_FLAG,
      examples: ['compliance-conductor validations download baseline --output baseline.tar', 'compliance-conductor validations download baseline | tar -t'],
      async run(ctx) {
        const name = ctx.arg(0);
        const data = await unwrap(ctx.conductor().GET('/validations/{name}/archive', { params: { path: { name } }, parseAs: 'arrayBuffer' }));
        await saveDownload(ctx, new Uint8Array(data), `validation library ${name}`);
      },
    },
    {
      name: 'delete',
      summary: 'delete a validation library',
      args: [NAME_ARG],
      examples: ['compliance-conductor validations delete baseline'],
      async run(ctx) {
        const deleted = await unwrap(ctx.conductor().DELETE('/validations/{name}', { params: { path: { name: ctx.arg(0) } } }));
        ctx.out.show(deleted, (d) => ctx.out.line(`${d.status} validation library ${d.name}.`));
      },
    },
  ],
};
