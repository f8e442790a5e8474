import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_NAMES, GENERATED_FILES, ROOT, generateAll } from './pipeline.js';

/** Regenerates into a scratch directory and fails when anything differs from the committed generated/. */
const scratch = await mkdtemp(join(tmpdir(), 'generated-'));
try {
  await generateAll(scratch);
  const stale: string[] = [];
  for (const api of API_NAMES) {
    for (const file of GENERATED_FILES) {
      const fresh = await readFile(join(scratch, api, file), 'utf8');
      const committed = await readFile(join(ROOT, 'generated', api, file), 'utf8').catch(() => undefined);
      if (committed !== fresh) stale.push(`generated/${api}/${file}`);
    }
  }
  if (stale.length > 0) {
    console.error(`generated/ is stale; run 'make generate' and commit the result:\n  ${stale.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log('generated/ is up to date with specs/');
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
