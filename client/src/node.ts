import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConductorClient } from './clients.js';
import { tarFiles, type TarFile } from './tar.js';
import * as uploads from './uploads.js';
import type { ArchiveSource, CreateProcessQuery, DryRunQuery } from './uploads.js';

export type { ArchiveSource, TarFile };

/**
 * A tar of the regular files under `dir` (recursively), with paths relative to it, sorted, in ustar format.
 * Symbolic links, devices and other special files are left out; the same files always give the same bytes.
 */
export async function tarDirectory(dir: string): Promise<Uint8Array> {
  const files: TarFile[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push({ path, content: await readFile(join(dir, path)) });
    }
  };
  await walk('');
  if (files.length === 0) throw new Error(`no regular files under ${dir} to archive`);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return tarFiles(files);
}

/**
 * The bytes of an archive to upload. A string is a path: a tar or tar.gz file is read as it is, and a directory is
 * packed into a tar in memory (see `tarDirectory`). Bytes and Blobs are returned as bytes.
 */
export async function readArchive(source: ArchiveSource | string): Promise<Uint8Array> {
  if (typeof source === 'string') {
    const info = await stat(source);
    if (info.isDirectory()) return tarDirectory(source);
    if (!info.isFile()) throw new Error(`${source} is neither a file nor a directory`);
    const bytes = await readFile(source);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  return new Uint8Array(await source.arrayBuffer());
}

/*
 * The upload helpers of the main entry point, taking a path as well: a tar or tar.gz file, or a directory packed on
 * the fly (`readArchive`). Bytes and Blobs go through unchanged.
 */
type PathOrArchive = ArchiveSource | string;

export const createProcess = async (client: ConductorClient, query: CreateProcessQuery, archive: PathOrArchive) =>
  uploads.createProcess(client, query, await readArchive(archive));

export const updateProcessComposition = async (client: ConductorClient, process: string, archive: PathOrArchive) =>
  uploads.updateProcessComposition(client, process, await readArchive(archive));

export const submitDryRun = async (client: ConductorClient, query: DryRunQuery, archive?: PathOrArchive) =>
  uploads.submitDryRun(client, query, archive === undefined ? undefined : await readArchive(archive));

export const addValidation = async (client: ConductorClient, name: string, archive: PathOrArchive) =>
  uploads.addValidation(client, name, await readArchive(archive));

export const attachRbacPolicy = async (client: ConductorClient, archive: PathOrArchive) =>
  uploads.attachRbacPolicy(client, await readArchive(archive));
