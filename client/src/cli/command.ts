import type { ComplianceClient, ConductorClient } from '../index.js';
import { UsageError, type ExitCode } from './exit-codes.js';
import type { CliIO, Output } from './output.js';

export type Api = 'compliance' | 'conductor';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** Repeatable; values may also be comma-separated (`--family CIS --family NIST` or `--family CIS,NIST`). */
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in help, e.g. `<name>`. */
  value?: string;
  description: string;
}

export interface ArgSpec {
  name: string;
  description: string;
  optional?: boolean;
}

/** One command: what `--help` shows about it, and what it does. */
export interface Command {
  name: string;
  summary: string;
  /** Longer help text, shown under the usage line. */
  description?: string;
  args?: readonly ArgSpec[];
  flags?: Readonly<Record<string, FlagSpec>>;
  examples: readonly string[];
  run(ctx: CommandContext): Promise<ExitCode | void>;
}

/** A group of commands over one API: `compliance-conductor <group> <command>`. */
export interface Group {
  name: string;
  api: Api;
  summary: string;
  commands: readonly Command[];
}

export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

export interface Clients {
  compliance(): ComplianceClient;
  conductor(): ConductorClient;
}

const DURATION = /^(\d+)(ms|s|m|h)?$/;
const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** What a command sees: its arguments and flags (checked as they are read), its output, and the API clients. */
export class CommandContext {
  constructor(
    private readonly positionals: ReadonlyArray<string | undefined>,
    private readonly values: FlagValues,
    readonly io: CliIO,
    readonly out: Output,
    private readonly clients: Clients,
  ) {}

  compliance(): ComplianceClient {
    return this.clients.compliance();
  }

  conductor(): ConductorClient {
    return this.clients.conductor();
  }

  /** The positional argument at `index`; commander has already checked that the required ones are there. */
  arg(index: number): string {
    const value = this.positionals[index];
    if (value === undefined) throw new UsageError(`missing argument ${index + 1}`);
    return value;
  }

  optionalArg(index: number): string | undefined {
    return this.positionals[index];
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
    return value;
  }

  /** Every value of a repeatable flag, comma-separated values split (unless `split` is false), blanks dropped. */
  strings(name: string, { split = true } = {}): string[] {
    const value = this.values[name];
    const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
    return list.flatMap((v) => (split ? v.split(',') : [v])).map((v) => v.trim()).filter((v) => v !== '');
  }

  /** `--search` terms as the JSON-encoded array the list operations' `query` parameter takes. */
  searchQuery(name = 'search'): string | undefined {
    const terms = this.strings(name, { split: false });
    return terms.length === 0 ? undefined : JSON.stringify(terms);
  }

  /** The flag's values, or undefined when it was not given (so that an absent filter stays absent). */
  optionalStrings(name: string): string[] | undefined {
    return this.has(name) ? this.strings(name) : undefined;
  }

  int(name: string, range: { min?: number; max?: number } = {}): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
    if (!/^\d+$/.test(text) || value < min || value > max) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}, not '${text}'`);
    }
    return value;
  }

  /** `on`/`off` (also true/false, yes/no) as a boolean; undefined when absent. */
  onOff(name: string): boolean | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const lower = text.toLowerCase();
    if (['on', 'true', 'yes'].includes(lower)) return true;
    if (['off', 'false', 'no'].includes(lower)) return false;
    throw new UsageError(`--${name} must be on or off, not '${text}'`);
  }

  /** A duration (`90s`, `10m`, `1h`, `500ms`; a bare number is seconds) in milliseconds. */
  duration(name: string): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const match = DURATION.exec(text.trim());
    if (!match) throw new UsageError(`--${name} must be a duration such as 90s, 10m or 1h, not '${text}'`);
    const unit = (match[2] ?? 's') as keyof typeof DURATION_UNITS;
    return Number(match[1]) * DURATION_UNITS[unit];
  }

  /** A point in time as Unix seconds: given as seconds, or as an ISO 8601 date or time (`2026-06-01T12:00Z`). */
  timestamp(name: string): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (/^\d+$/.test(text)) return Number(text);
    const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(ms)) throw new UsageError(`--${name} must be Unix seconds or an ISO 8601 time such as 2026-06-01T12:00Z, not '${text}'`);
    return Math.floor(ms / 1000);
  }

  /**
   * A minute in the conductor's `mm/dd/YYYY HH:MM` (UTC) format, given either in that format or as an ISO 8601
   * time (`2026-06-01T12:30Z`).
   */
  minute(name: string): string | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/.test(text)) return text;
    const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(ms)) throw new UsageError(`--${name} must be 'mm/dd/YYYY HH:MM' (UTC) or an ISO 8601 time, not '${text}'`);
    const iso = new Date(ms).toISOString();
    return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)} ${iso.slice(11, 16)}`;
  }

  /** One of `choices`, compared without regard to case and answered in the choice's own spelling. */
  choice<const T extends string>(name: string, choices: readonly T[]): T | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const found = choices.find((c) => c.toLowerCase() === text.toLowerCase());
    if (!found) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, not '${text}'`);
    return found;
  }

  /** Each value of a repeatable flag, checked against `choices` like `choice`. */
  choices<const T extends string>(name: string, choices: readonly T[]): T[] | undefined {
    const values = this.optionalStrings(name);
    return values?.map((text) => {
      const found = choices.find((c) => c.toLowerCase() === text.toLowerCase());
      if (!found) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, not '${text}'`);
      return found;
    });
  }
}
