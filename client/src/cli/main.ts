#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, types } from 'node:util';
import { ApiError, createComplianceClient, createConductorClient, WaitTimeoutError } from '../index.js';
import { CommandContext, type Api, type Command, type FlagSpec, type FlagValues } from './command.js';
import { connectionFlags, resolveConnection } from './connection.js';
import { EXIT, UsageError, type ExitCode } from './exit-codes.js';
import { GROUPS } from './groups.js';
import { commandHelp, groupHelp, OUTPUT_FLAGS, PROGRAM, programHelp } from './help.js';
import { Output, type CliIO } from './output.js';

export { GROUPS };
export type { CliIO };

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/**
 * fetch rejects with a TypeError ("fetch failed") whose cause, sometimes nested, says why: a system error code
 * (ECONNREFUSED, ENOTFOUND, ...) or a message (e.g. "bad port"). Anything else is not a network failure.
 * The errors are recognised by `isNativeError`, not `instanceof`: fetch may belong to another realm (a vm context
 * such as a test runner's), whose TypeError is not this one.
 */
function networkCause(error: unknown): string | undefined {
  if (!types.isNativeError(error) || error.name !== 'TypeError') return undefined;
  let cause: unknown = error.cause;
  let reason: string | undefined;
  for (let depth = 0; depth < 3 && types.isNativeError(cause); depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR') || code.startsWith('ERR_TLS') || code.includes('CERT'))) {
      return cause.message && !cause.message.includes(code) ? `${code} (${cause.message})` : cause.message || code;
    }
    reason ??= cause.message || undefined;
    cause = cause.cause;
  }
  if (error.message !== 'fetch failed') return undefined;
  return reason === undefined ? error.message : `${error.message}: ${reason}`;
}

/** `<status> <type or code>: <message>`, then the conductor's details one per line. */
export function describeApiError(error: ApiError): string {
  const body = error.body as unknown;
  if (body !== null && typeof body === 'object') {
    const { type, message, errors } = body as { type?: unknown; message?: unknown; errors?: unknown };
    const details = Array.isArray(errors) ? (errors as Array<{ code?: string; message?: string; location?: string }>) : [];
    const kind = typeof type === 'string' ? type : (details[0]?.code ?? '');
    const head = `${error.status}${kind ? ` ${kind}` : ''}: ${typeof message === 'string' ? message : error.response.statusText}`;
    return [head, ...details.map((d) => `  ${d.location ? `${d.location}: ` : ''}${d.message ?? d.code ?? ''}`)].join('\n');
  }
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return `${error.status}: ${text || error.response.statusText || 'error'} (${error.operation})`;
}

/**
 * A flag that takes a value takes the next word, even one starting with a dash (a secret may): parseArgs refuses
 * such a value unless it is attached, so it is attached here (`--secret=-x…`, `-s-x…`).
 */
function attachDashValues(args: readonly string[], flags: Readonly<Record<string, FlagSpec>>): string[] {
  const byShort = new Map<string, string>(Object.entries(flags).flatMap(([name, spec]) => (spec.short ? [[`-${spec.short}`, name] as const] : [])));
  const attached: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return [...attached, ...args.slice(i)];
    const name = arg.startsWith('--') ? arg.slice(2) : byShort.get(arg);
    const next = args[i + 1];
    if (name !== undefined && flags[name]?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '--') {
      attached.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i += 1;
    } else {
      attached.push(arg);
    }
  }
  return attached;
}

function parse(args: readonly string[], flags: Readonly<Record<string, FlagSpec>>) {
  const options = Object.fromEntries(
    Object.entries(flags).map(([name, spec]) => [name, { type: spec.type, ...(spec.multiple && { multiple: true }), ...(spec.short && { short: spec.short }) }]),
  );
  try {
    return parseArgs({ args: attachDashValues(args, flags), options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains unknown flags and missing values well; keep its words, drop its suggestion syntax.
    throw new UsageError((error as Error).message.replace(/\.? ?To specify a positional argument.*$/s, ''));
  }
}

const wantsHelp = (args: readonly string[]) => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '-h' || a === '--help');
};

function checkArgs(command: Command, positionals: readonly string[]): void {
  const specs = command.args ?? [];
  const missing = specs.filter((a, i) => !a.optional && positionals[i] === undefined);
  if (missing.length > 0) throw new UsageError(`missing argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => `<${a.name}>`).join(' ')}`);
  if (positionals.length > specs.length) throw new UsageError(`unexpected argument '${positionals[specs.length]}'`);
}

/**
 * Runs one command line (without the program name) and answers its exit code. Everything it prints goes
 * through `io`, and credentials come from the flags or `io.env`, so tests run it in process.
 */
export async function main(argv: readonly string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<ExitCode> {
  const usage = (message: string, helpCommand: string) => {
    io.stderr.write(`${PROGRAM}: ${message}\nRun '${helpCommand} --help' for usage.\n`);
    return EXIT.usage;
  };
  const [groupName, commandName, ...rest] = argv;
  if (groupName === undefined) {
    io.stderr.write(programHelp(GROUPS));
    return EXIT.usage;
  }
  if (groupName === '-h' || groupName === '--help' || groupName === 'help') {
    io.stdout.write(programHelp(GROUPS));
    return EXIT.ok;
  }
  const group = GROUPS.find((g) => g.name === groupName);
  if (!group) return usage(`unknown command group '${groupName}'`, PROGRAM);
  if (commandName === undefined) {
    io.stderr.write(groupHelp(group));
    return EXIT.usage;
  }
  if (commandName === '-h' || commandName === '--help' || commandName === 'help') {
    io.stdout.write(groupHelp(group));
    return EXIT.ok;
  }
  const command = group.commands.find((c) => c.name === commandName);
  const path = `${PROGRAM} ${group.name}`;
  if (!command) return usage(`unknown command '${commandName}' in ${group.name}`, path);
  if (wantsHelp(rest)) {
    io.stdout.write(commandHelp(group, command));
    return EXIT.ok;
  }

  let target: string | undefined;
  try {
    const { values, positionals } = parse(rest, { ...command.flags, ...connectionFlags(group.api), ...OUTPUT_FLAGS });
    checkArgs(command, positionals);
    const flagValues = values as FlagValues;
    const connect = (api: Api) => {
      const connection = resolveConnection(api, flagValues, io.env);
      target = connection.baseUrl;
      return connection;
    };
    const clients = {
      compliance: () => createComplianceClient(connect('compliance')),
      conductor: () => createConductorClient(connect('conductor')),
    };
    const out = new Output(io, flagValues.json === true);
    const ctx = new CommandContext(positionals, flagValues, io, out, clients);
    return (await command.run(ctx)) ?? EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message, `${path} ${command.name}`);
    if (error instanceof ApiError) {
      io.stderr.write(`${describeApiError(error)}\n`);
      return EXIT.apiError;
    }
    if (error instanceof WaitTimeoutError) {
      io.stderr.write(`${PROGRAM}: timed out: ${error.message}\n`);
      return EXIT.timeout;
    }
    const network = networkCause(error);
    if (network !== undefined) {
      io.stderr.write(`${PROGRAM}: cannot reach the server at ${target ?? 'its URL'}: ${network}\n`);
      return EXIT.network;
    }
    io.stderr.write(`${PROGRAM}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.apiError;
  }
}

/** Whether this module is the program being run (also through npm's bin symlink), not one being imported. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // A reader that stops early (`| head`) closes the pipe; that is not an error of the command.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
  process.exitCode = await main(process.argv.slice(2));
}
