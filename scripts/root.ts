import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root directory, in a module of its own: what needs only the root (the benchmarks, whose own
 * process is measured) loads nothing else, where scripts/pipeline.ts loads the spec converters and TypeScript.
 */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
