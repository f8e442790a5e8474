import { parseDocument } from 'yaml';
import { AppError, type ErrorDetail } from '../errors.js';

/**
 * Reading the YAML file of an uploaded archive (rules.yaml, policy.yaml) and collecting every problem in it, so
 * that one 400 lists them all, each located as `<file>:<path in the file>`.
 */

/** Parses YAML text; a syntax error is a 400 naming the file, the line and the column. */
export function parseYamlFile(file: string, text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (document.errors.length > 0) {
    throw invalidFile(
      file,
      document.errors.map((error) => ({ code: 'yaml.syntax', message: error.message.split('\n')[0]!.replace(/:$/, ''), location: file })),
    );
  }
  try {
    // Aliases are expanded here; the cap keeps a small file from expanding into a huge document.
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw invalidFile(file, [{ code: 'yaml.syntax', message: (error as Error).message, location: file }]);
  }
}

export const invalidFile = (file: string, details: ErrorDetail[]): AppError =>
  new AppError('bad_request', `invalid ${file}: ${details.length === 1 ? '1 problem' : `${details.length} problems`} found`, { details });

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Collects problems found in one file; `at` builds locations such as `policy.yaml:rules[0].actions[1]`. */
export class Problems {
  readonly details: ErrorDetail[] = [];

  constructor(
    readonly file: string,
    private readonly code: string,
  ) {}

  at(path: string): string {
    return path === '' ? this.file : `${this.file}:${path}`;
  }

  add(path: string, message: string, code = this.code): void {
    this.details.push({ code, message, location: this.at(path) });
  }

  /** Reports keys that are not among the known ones: a misspelt key must not be silently ignored. */
  unknownKeys(path: string, value: Record<string, unknown>, known: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) this.add(path === '' ? key : `${path}.${key}`, `unknown key '${key}' (expected ${known.join(', ')})`);
    }
  }

  /** A list of non-empty strings, or a problem; returns the strings that are valid. */
  strings(path: string, value: unknown, what: string, { nonEmpty }: { nonEmpty: boolean }): string[] {
    if (!Array.isArray(value)) {
      this.add(path, `${what} must be a list of strings`);
      return [];
    }
    if (nonEmpty && value.length === 0) this.add(path, `${what} must not be empty`);
    const valid: string[] = [];
    value.forEach((item, index) => {
      if (typeof item !== 'string' || item === '') this.add(`${path}[${index}]`, `${what} must be non-empty strings`);
      else valid.push(item);
    });
    return valid;
  }

  throwIfAny(): void {
    if (this.details.length > 0) throw invalidFile(this.file, this.details);
  }
}
