import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

/**
 * Imports run one way: http and storage depend on the domain, never the reverse. The domain declares the repository
 * interfaces it needs (domain/repositories.ts) and storage implements them; the composition root wires storage into
 * the domain without reaching into the HTTP layer.
 */
const sourceRoot = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every relative module a file imports or re-exports, resolved to a path under the source root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/g), ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? '');
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(sourceRoot, resolve(dirname(file), s)));
}

function violations(files: string[], forbidden: string[]): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden.some((layer) => target === layer || target.startsWith(`${layer}/`)))
      .map((target) => `${relative(sourceRoot, file)} imports ${target}`),
  );
}

describe('layers', () => {
  it('the domain imports neither storage nor http', () => {
    expect(violations(sourceFiles(join(sourceRoot, 'domain')), ['storage', 'http'])).toEqual([]);
  });

  it('storage imports nothing from http', () => {
    expect(violations(sourceFiles(join(sourceRoot, 'storage')), ['http'])).toEqual([]);
  });

  it('the services are composed without the HTTP layer', () => {
    const roots = ['services.ts', 'conductor-services.ts'].map((name) => join(sourceRoot, name));
    expect(violations(roots, ['http'])).toEqual([]);
  });

  it('the check sees an import that crosses a layer', () => {
    // Guards the scanner itself: the HTTP layer does import the domain, so a rule forbidding it must report it.
    expect(violations(sourceFiles(join(sourceRoot, 'http')), ['domain']).length).toBeGreaterThan(0);
  });
});
