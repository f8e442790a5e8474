#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { types } from 'node:util';
import { CommanderError } from 'commander';
import { ApiError, createComplianceClient, createConductorClient, WaitTimeoutError } from '../index.js';
import { CommandContext, type Api } from './command.js';
import { resolveConnection } from './connection.js';
import { EXIT, UsageError, type ExitCode } from './exit-codes.js';
import { GROUPS } from './groups.js';
import { PROGRAM } from './help.js';
import { Output, type CliIO } from './output.js';
import { program, usageHint, type Invocation } from './program.js';

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

/** Runs a command commander accepted, and answers its exit code: the command's own, or the one its failure calls for. */
async function execute({ group, command, args, values }: Invocation, io: CliIO): Promise<ExitCode> {
  let target: string | undefined;
  try {
    const connect = (api: Api) => {
      const connection = resolveConnection(api, values, io.env);
      target = connection.baseUrl;
      return connection;
    };
    const clients = {
      compliance: () => createComplianceClient(connect('compliance')),
      conductor: () => createConductorClient(connect('conductor')),
    };
    const ctx = new CommandContext(args, values, io, new Output(io, values.json === true), clients);
    return (await command.run(ctx)) ?? EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\n${usageHint(`${PROGRAM} ${group.name} ${command.name}`)}\n`);
      return EXIT.usage;
    }
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

/**
 * Runs one command line (without the program name) and answers its exit code. Everything it prints goes
 * through `io`, and credentials come from the flags or `io.env`, so tests run it in process. A command line
 * commander refuses exits 2 (usage), as a group or the program without a command does (their help goes to stderr);
 * `--help` exits 0.
 */
export async function main(argv: readonly string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<ExitCode> {
  let exit: ExitCode = EXIT.ok;
  const cli = program(GROUPS, io, async (invocation) => {
    exit = await execute(invocation, io);
  });
  try {
    await cli.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  return exit;
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
