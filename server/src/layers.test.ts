import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from './paths.js';

/**
 * Imports run one way: http and storage depend on the domain, never the reverse; the domain knows no Express; the
 * services are composed without the HTTP layer; only the HTTP layer reads the generated types. The rules are
 * dependency-cruiser's (.dependency-cruiser.cjs), which `make lint` runs too; here they are run on the source and on
 * a tree that breaks each of them, so that a rule that stopped matching fails.
 */
const run = promisify(execFile);
const CONFIG = join(PROJECT_ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(PROJECT_ROOT, 'node_modules', '.bin', 'depcruise');

interface Cruise {
  summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
}

async function cruise(cwd: string): Promise<Cruise['summary']['violations']> {
  // depcruise exits non-zero when it finds violations; the JSON report says which either way.
  const { stdout } = await run(DEPCRUISE, ['server/src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return (JSON.parse(stdout) as Cruise).summary.violations;
}

describe('layers', () => {
  it('the source keeps every layer rule', async () => {
    expect(await cruise(PROJECT_ROOT)).toEqual([]);
  }, 60_000);

  it('the rules catch each import that crosses a layer', async () => {
    const tree = await mkdtemp(join(tmpdir(), 'layers-'));
    try {
      const file = async (path: string, text: string) => {
        await mkdir(join(tree, path, '..'), { recursive: true });
        await writeFile(join(tree, path), text);
      };
      await file('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }));
      await file('generated/compliance/schema.ts', 'export type operations = { a: 1 };\n');
      await file('node_modules/express/package.json', JSON.stringify({ name: 'express', main: 'index.js' }));
      await file('node_modules/express/index.js', 'module.exports = function express() {};\n');
      await file('server/src/http/apis.ts', 'export type ApiName = string;\n');
      await file('server/src/storage/rows.ts', "import type { ApiName } from '../http/apis.js';\nexport type Row = ApiName;\n");
      await file('server/src/services.ts', "import type { ApiName } from './http/apis.js';\nexport type Services = ApiName;\n");
      await file(
        'server/src/domain/use-case.ts',
        "import type { ApiName } from '../http/apis.js';\nimport type { Row } from '../storage/rows.js';\nimport type { operations } from '../../../generated/compliance/schema.js';\nimport express from 'express';\nexport type UseCase = [ApiName, Row, operations, typeof express];\n",
      );
      const violations = await cruise(tree);
      expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()).toEqual([
        'domain-knows-no-express: server/src/domain/use-case.ts → node_modules/express/index.js',
        'domain-knows-no-storage-or-http: server/src/domain/use-case.ts → server/src/http/apis.ts',
        'domain-knows-no-storage-or-http: server/src/domain/use-case.ts → server/src/storage/rows.ts',
        'generated-types-only-at-the-edge: server/src/domain/use-case.ts → generated/compliance/schema.ts',
        'services-composed-without-http: server/src/services.ts → server/src/http/apis.ts',
        'storage-knows-no-http: server/src/storage/rows.ts → server/src/http/apis.ts',
      ]);
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  }, 60_000);
});
