import { writeFile } from 'node:fs/promises';
import type { CommandContext, FlagSpec } from './command.js';
import { UsageError } from './exit-codes.js';

export const OUTPUT_FLAG: Record<string, FlagSpec> = {
  output: { type: 'string', short: 'o', value: '<path>', description: 'write the archive to this file (default: stdout)' },
};

/** Writes downloaded bytes to `--output`, or to stdout unless stdout is a terminal. */
export async function saveDownload(ctx: CommandContext, bytes: Uint8Array, what: string): Promise<void> {
  const path = ctx.string('output');
  if (path === undefined) {
    if (ctx.io.stdout.isTTY) throw new UsageError(`${what} is a binary archive: give --output <path> or redirect stdout`);
    ctx.out.bytes(bytes);
    return;
  }
  try {
    await writeFile(path, bytes);
  } catch (error) {
    throw new UsageError(`cannot write --output ${path}: ${(error as Error).message}`);
  }
  if (ctx.out.json) ctx.out.printJson({ path, size: bytes.byteLength });
  else ctx.out.line(`Wrote ${what} (${bytes.byteLength} bytes) to ${path}.`);
}
