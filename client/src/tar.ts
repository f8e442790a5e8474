/** A file to put in a tar: its path inside the archive (relative, `/`-separated) and its content. */
export interface TarFile {
  path: string;
  content: Uint8Array | string;
}

const encoder = new TextEncoder();
/** A fixed modification time: the same files always make the same bytes (and the same SHA-256 on the server). */
const EPOCH = new Date(0);

function checkPath(path: string): void {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`not a relative path inside an archive: ${JSON.stringify(path)}`);
  }
}

/**
 * A tar of regular files, in the order given, written by `tar-stream`: the library the server reads archives with.
 * Paths are relative and `/`-separated; a path that ustar's name fields cannot hold (too long, not ASCII) goes in a
 * PAX header. Mode, owner, group and modification time are fixed, so the same files always give the same archive.
 *
 * `tar-stream` is loaded on the first call, not with this module: most programs, the CLI's commands among them, never
 * build an archive. In a browser its streams need the `events` module, which this package depends on for bundlers.
 */
export async function tarFiles(files: readonly TarFile[] | Readonly<Record<string, Uint8Array | string>>): Promise<Uint8Array> {
  const list: TarFile[] = Array.isArray(files) ? [...files] : Object.entries(files).map(([path, content]) => ({ path, content }));
  const seen = new Set<string>();
  for (const { path } of list) {
    checkPath(path);
    if (seen.has(path)) throw new Error(`duplicate path in archive: ${path}`);
    seen.add(path);
  }
  const { pack } = await import('tar-stream');
  const archive = pack();
  for (const { path, content } of list) {
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    archive.entry({ name: path, type: 'file', size: bytes.byteLength, mode: 0o644, uid: 0, gid: 0, mtime: EPOCH }, bytes);
  }
  archive.finalize();
  const chunks: Uint8Array[] = [];
  for await (const chunk of archive) chunks.push(chunk as Uint8Array);
  const tar = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    tar.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return tar;
}
