import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../paths.js';

const run = promisify(execFile);

/**
 * A process that opens a SQLite file, uses it and closes it ends on its own, with status 0: the thread that
 * checkpoints the file's log must not leave a close pending when nothing else keeps the process alive (the admin
 * command exited with 13, "unsettled top-level await", about every other time).
 */
describe('a SQLite file in a short-lived process', () => {
  it('closes and lets the process end cleanly, every time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqlite-file-'));
    const script = `
      import { migrateToLatest, openDatabase } from './server/src/storage/database.ts';
      const handle = openDatabase('sqlite:' + process.argv[1]);
      await migrateToLatest(handle);
      await handle.close();
      console.log('closed');`;
    try {
      for (let i = 0; i < 6; i += 1) {
        const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, join(dir, `app-${i}.db`)], { cwd: PROJECT_ROOT });
        expect(stdout.trim()).toBe('closed');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
