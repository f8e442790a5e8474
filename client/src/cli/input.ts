import { readFile } from 'node:fs/promises';
import type { ArchiveSource } from '../index.js';
import { readArchive } from '../node.js';
import type { CommandContext, FlagSpec } from './command.js';
import { UsageError } from './exit-codes.js';

/** `--body` and `--file`: a JSON request body given inline or in a file; convenience flags are applied over it. */
export const BODY_FLAGS: Record<string, FlagSpec> = {
  body: { type: 'string', value: '<json>', description: 'the request body as JSON; the other flags are applied over it' },
  file: { type: 'string', value: '<path.json>', description: 'read the request body from a JSON file instead' },
};

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The JSON object from `--body` or `--file` (not both), or an empty object when neither is given. */
export async function jsonBody(ctx: CommandContext): Promise<Record<string, unknown>> {
  const inline = ctx.string('body');
  const path = ctx.string('file');
  if (inline !== undefined && path !== undefined) throw new UsageError('give the body with --body or --file, not both');
  let text: string;
  let source: string;
  if (inline !== undefined) {
    text = inline;
    source = '--body';
  } else if (path !== undefined) {
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --file ${path}: ${errorMessage(error)}`);
    }
    source = path;
  } else {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${errorMessage(error)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${source} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Drops the keys whose value is undefined, so that absent flags leave the body as it was. */
export function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A tar, a gzipped tar, or a directory packed into a tar; an unreadable path is a usage error. */
export async function archiveAt(path: string): Promise<ArchiveSource> {
  try {
    return await readArchive(path);
  } catch (error) {
    throw new UsageError(`cannot read the archive ${path}: ${errorMessage(error)}`);
  }
}
