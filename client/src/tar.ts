/** A file to put in a tar: its path inside the archive (relative, `/`-separated) and its content. */
export interface TarFile {
  path: string;
  content: Uint8Array | string;
}

const BLOCK = 512;
const encoder = new TextEncoder();

function writeString(header: Uint8Array, offset: number, length: number, value: string | Uint8Array): void {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  if (bytes.length > length) throw new Error(`tar header field of ${length} bytes cannot hold ${bytes.length}`);
  header.set(bytes, offset);
}

/** An octal number, zero-padded to `length - 1` digits and NUL-terminated, as ustar writes numeric fields. */
const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;

/** Splits a path into ustar's `prefix` (up to 155 bytes) and `name` (up to 100 bytes) at a `/`. */
function splitPath(path: string): { name: Uint8Array; prefix: Uint8Array } {
  const bytes = encoder.encode(path);
  if (bytes.length <= 100) return { name: bytes, prefix: new Uint8Array() };
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
    const prefix = encoder.encode(path.slice(0, cut));
    const name = encoder.encode(path.slice(cut + 1));
    if (prefix.length <= 155 && name.length <= 100 && name.length > 0) return { name, prefix };
  }
  throw new Error(`path too long for a ustar archive: ${path}`);
}

function checkPath(path: string): void {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`not a relative path inside an archive: ${JSON.stringify(path)}`);
  }
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const { name, prefix } = splitPath(path);
  writeString(block, 0, 100, name);
  writeString(block, 100, 8, octal(0o644, 8));
  writeString(block, 108, 8, octal(0, 8));
  writeString(block, 116, 8, octal(0, 8));
  writeString(block, 124, 12, octal(size, 12));
  // A fixed modification time: the same files always make the same bytes (and the same SHA-256 on the server).
  writeString(block, 136, 12, octal(0, 12));
  writeString(block, 156, 1, '0');
  writeString(block, 257, 6, 'ustar\0');
  writeString(block, 263, 2, '00');
  writeString(block, 345, 155, prefix);
  // The checksum is computed with its own field read as eight spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/**
 * A ustar archive of regular files, in the order given. Paths are relative and `/`-separated; owner, group and
 * modification time are fixed, so the same files always give the same archive.
 */
export function tarFiles(files: readonly TarFile[] | Readonly<Record<string, Uint8Array | string>>): Uint8Array {
  const list: TarFile[] = Array.isArray(files) ? [...files] : Object.entries(files).map(([path, content]) => ({ path, content }));
  const seen = new Set<string>();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const { path, content } of list) {
    checkPath(path);
    if (seen.has(path)) throw new Error(`duplicate path in archive: ${path}`);
    seen.add(path);
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    parts.push(header(path, bytes.length), bytes);
    const padded = Math.ceil(bytes.length / BLOCK) * BLOCK;
    total += BLOCK + padded;
    if (padded > bytes.length) parts.push(new Uint8Array(padded - bytes.length));
  }
  // Two zero blocks end the archive.
  total += 2 * BLOCK;
  const archive = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    archive.set(part, offset);
    offset += part.length;
  }
  return archive;
}
