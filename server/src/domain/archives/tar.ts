import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { AppError } from '../errors.js';

/**
 * The one reader for the archives the conductor accepts (compositions, validation libraries, rbac policies): a tar,
 * optionally gzipped. Everything an archive could use to escape or exhaust the server is refused with a 400 that
 * says what was wrong: anything that is not a tar, absolute or `..` paths, links, devices and other special
 * entries, too many entries, and too many bytes, counted after decompression and enforced while decompressing.
 */
export interface ArchiveLimits {
  maxEntries: number;
  /** Total bytes of the files' contents, after decompression. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = { maxEntries: 256, maxBytes: 8 * 1024 * 1024 };

/** Regular files of the archive by normalized path (`./a/b.yaml` → `a/b.yaml`). Directories are dropped. */
export type ArchiveFiles = Map<string, Buffer>;

const GZIP_MAGIC = [0x1f, 0x8b];
const refuse = (code: string, message: string, location = 'archive') =>
  new AppError('bad_request', `invalid archive: ${message}`, { details: [{ code: `archive.${code}`, message, location }] });

/** `./a//b` → `a/b`; the root directory itself (`./`) normalizes to ''. */
function normalize(name: string): string {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw refuse('absolute_path', `entry '${name}' has an absolute path`, name);
  const parts = name.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw refuse('path_traversal', `entry '${name}' escapes the archive root with '..'`, name);
  return parts.join('/');
}

/** Reads an archive held in memory (request bodies are already bounded by the body parser's limit). */
export async function readArchive(bytes: Uint8Array, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<ArchiveFiles> {
  if (bytes.length === 0) throw refuse('empty', 'the body is empty; send a tar archive');
  const gzipped = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
  let source: NodeJS.ReadableStream = Readable.from([Buffer.from(bytes)]);
  if (gzipped) {
    // maxOutputLength stops a decompression bomb inside zlib rather than after it: a tar of maxBytes of content
    // plus one header per entry and the end blocks cannot be larger than this.
    const gunzip = createGunzip({ maxOutputLength: limits.maxBytes + (limits.maxEntries + 2) * 1024 + 10240 });
    source = (source as Readable).pipe(gunzip);
  }
  const files: ArchiveFiles = new Map();
  const parser = extract();
  let entries = 0;
  let total = 0;

  const done = new Promise<void>((resolve, reject) => {
    parser.on('entry', (header, stream, next) => {
      const fail = (error: AppError) => {
        stream.resume();
        reject(error);
        parser.destroy();
      };
      entries += 1;
      if (entries > limits.maxEntries) return fail(refuse('too_many_entries', `more than ${limits.maxEntries} entries`));
      let name: string;
      try {
        name = normalize(header.name);
      } catch (error) {
        return fail(error as AppError);
      }
      if (header.type === 'directory') {
        stream.resume();
        stream.on('end', next);
        return;
      }
      if (name === '') return fail(refuse('empty_path', 'a file entry has an empty name'));
      if (header.type === 'symlink' || header.type === 'link') return fail(refuse('link', `entry '${name}' is a link; only regular files are accepted`, name));
      if (header.type !== 'file' && header.type !== 'contiguous-file') {
        return fail(refuse('special_entry', `entry '${name}' is a ${header.type}; only regular files are accepted`, name));
      }
      if (files.has(name)) return fail(refuse('duplicate_entry', `entry '${name}' appears twice`, name));
      const chunks: Buffer[] = [];
      stream.on('data', (data: unknown) => {
        const chunk = data as Buffer;
        total += chunk.length;
        if (total > limits.maxBytes) return fail(refuse('too_large', `more than ${limits.maxBytes} bytes once unpacked`, name));
        chunks.push(chunk);
      });
      stream.on('end', () => {
        files.set(name, Buffer.concat(chunks));
        next();
      });
      stream.on('error', reject);
    });
    parser.on('finish', resolve);
    parser.on('error', () => reject(refuse('not_tar', 'the body is not a tar archive (optionally gzipped)')));
    source.on('error', (error: Error & { code?: string }) =>
      reject(
        error.code === 'ERR_BUFFER_TOO_LARGE'
          ? refuse('too_large', `more than ${limits.maxBytes} bytes once unpacked`)
          : refuse('not_gzip', 'the body looks gzipped but does not decompress'),
      ),
    );
  });
  source.pipe(parser);
  await done;
  if (files.size === 0 && entries === 0) throw refuse('not_tar', 'the body is not a tar archive (optionally gzipped)');
  return files;
}

/** The one file an archive must hold, as UTF-8 text; 400 naming it when it is missing. */
export function requireFile(files: ArchiveFiles, name: string): string {
  const file = files.get(name);
  if (!file) throw refuse('missing_file', `the archive must contain ${name} at its root`, name);
  return file.toString('utf8');
}
