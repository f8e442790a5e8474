import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest ancestor holding `generated/`, whether running from sources or from dist/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'generated')) || !existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the project root (a directory with generated/ and package.json)');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot();
export const GENERATED_DIR = join(PROJECT_ROOT, 'generated');
