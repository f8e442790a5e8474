// The package must stand alone: it carries copies of the generated types instead of reaching into the
// repository's generated/ directory.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// src/generated for compiling, dist/generated and dist/cjs/generated (beside each build's declarations) because tsc
// does not copy declaration files into its output.
for (const target of [join(here, '..', 'src', 'generated'), join(here, '..', 'dist', 'generated'), join(here, '..', 'dist', 'cjs', 'generated')]) {
  mkdirSync(target, { recursive: true });
  for (const api of ['compliance', 'conductor', 'console']) {
    copyFileSync(join(here, '..', '..', 'generated', api, 'schema.d.ts'), join(target, `${api}.d.ts`));
  }
}
