import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GROUPS } from '../client/src/cli/main.js';
import { neverRan, recordCliCommand, tableCommands } from './check-cli-coverage.js';

describe('the CLI coverage check', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-coverage-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists every command of the table as <group> <command>', () => {
    const commands = tableCommands();
    expect(commands).toContain('scans trigger');
    expect(commands).toHaveLength(GROUPS.reduce((count, group) => count + group.commands.length, 0));
    expect(new Set(commands).size).toBe(commands.length);
  });

  it('names the commands never recorded, in the order given, and nothing once all were', async () => {
    const file = join(dir, 'exercised', 'cli-commands.txt');
    expect(neverRan(['scans trigger', 'scans list'], file)).toEqual(['scans trigger', 'scans list']);
    recordCliCommand('scans list', file);
    recordCliCommand('scans list', file);
    expect(await readFile(file, 'utf8')).toBe('scans list\nscans list\n');
    expect(neverRan(['scans trigger', 'scans list', 'environments get'], file)).toEqual(['scans trigger', 'environments get']);
    recordCliCommand('scans trigger', file);
    recordCliCommand('environments get', file);
    expect(neverRan(['scans trigger', 'scans list', 'environments get'], file)).toEqual([]);
  });
});
