import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A filesystem of a few megabytes that a test can fill to the last byte and free again: a tmpfs mounted over a
 * temporary folder. Mounting needs the privilege to mount (root, as in CI); `mountProblem()` says why not otherwise,
 * and the tests that need one are skipped with that reason.
 */

/** Why a tmpfs cannot be mounted here, or undefined when it can. */
export function mountProblem(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mounting a tmpfs is not permitted here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new folder with a filesystem of `megabytes` of its own, readable by its owner only. */
export function mountSmallDisk(prefix: string, megabytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
  return dir;
}

/** Unmounts and removes a folder of `mountSmallDisk`; lazily, should anything still hold a file there. */
export function unmountSmallDisk(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes `path` until the filesystem has not one byte left. */
export function fillUp(path: string): void {
  const fd = openSync(path, 'a');
  try {
    for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

export const freeBytes = (dir: string): number => {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize;
};
