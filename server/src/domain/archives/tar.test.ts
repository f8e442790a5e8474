import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { HOSTILE_ARCHIVES, filesTar, tarOf } from '../../../test/fixtures/archives.js';
import { AppError } from '../errors.js';
import { readArchive, requireFile } from './tar.js';

describe('archive reader', () => {
  it('reads the regular files of a tar, and of a gzipped tar, by normalized path', async () => {
    const tar = await tarOf([
      { header: { name: './', type: 'directory' } },
      { header: { name: './composition.yaml' }, content: 'resources: []\n' },
      { header: { name: 'lib/rules.yaml' }, content: 'rules: []\n' },
    ]);
    for (const bytes of [tar, gzipSync(tar)]) {
      const files = await readArchive(bytes);
      expect([...files.keys()].sort()).toEqual(['composition.yaml', 'lib/rules.yaml']);
      expect(requireFile(files, 'composition.yaml')).toBe('resources: []\n');
    }
  });

  it('names the file an archive lacks', async () => {
    const files = await readArchive(await filesTar({ 'other.yaml': 'x' }));
    expect(() => requireFile(files, 'composition.yaml')).toThrow(/must contain composition.yaml/);
  });

  for (const [name, build] of Object.entries(HOSTILE_ARCHIVES)) {
    it(`refuses the hostile archive '${name}' with a clear message`, async () => {
      const bytes = await build();
      const refused = await readArchive(bytes).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('bad_request');
      expect((refused as AppError).message).toMatch(/^invalid archive: /);
      expect((refused as AppError).details[0]?.code).toMatch(/^archive\./);
    });
  }

  it('stops a decompression bomb without inflating it', async () => {
    const bomb = await HOSTILE_ARCHIVES['gzip-bomb']!();
    expect(bomb.length).toBeLessThan(256 * 1024);
    const before = process.memoryUsage().rss;
    await expect(readArchive(bomb)).rejects.toThrow(/bytes once unpacked/);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });
});
