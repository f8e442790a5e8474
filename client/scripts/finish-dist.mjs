// Marks dist/cjs/ as CommonJS for Node and TypeScript (the package itself is "type": "module"), and makes the
// command executable, as npm does on install, so that the repository's own bin link runs it after every build.
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
chmodSync(join(dist, 'cli', 'main.js'), 0o755);
