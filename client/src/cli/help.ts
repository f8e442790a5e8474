import type { Command, FlagSpec, Group } from './command.js';
import { CONNECTIONS, connectionFlags, DEFAULT_URL } from './connection.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

export const PROGRAM = 'compliance-conductor';

/** Flags every command takes besides its own and its API's connection flags. */
export const OUTPUT_FLAGS: Record<string, FlagSpec> = {
  json: { type: 'boolean', description: 'print the API\'s JSON (pretty) instead of a table' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** Two columns: names padded to the longest, then their descriptions. */
function columns(rows: ReadonlyArray<readonly [string, string]>, indent = '  '): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, text]) => `${indent}${name.padEnd(width)}   ${text}`.trimEnd()).join('\n');
}

function flagRows(flags: Readonly<Record<string, FlagSpec>>): Array<[string, string]> {
  return Object.entries(flags).map(([name, spec]) => {
    const names = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
    return [names, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`];
  });
}

/** A summary as a sentence: capitalised, with a full stop. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

const argUsage = (command: Command) => (command.args ?? []).map((a) => (a.optional ? `[${a.name}]` : `<${a.name}>`)).join(' ');

export function programHelp(groups: readonly Group[]): string {
  const section = (api: Group['api']) => columns(groups.filter((g) => g.api === api).map((g) => [g.name, g.summary]));
  const c = CONNECTIONS.compliance;
  const k = CONNECTIONS.conductor;
  return `${PROGRAM}: the command line of the compliance and conductor APIs

Usage: ${PROGRAM} <group> <command> [arguments] [flags]

Compliance API:
${section('compliance')}

Conductor API:
${section('conductor')}

Server and credentials (a flag wins over its environment variable):
${columns([
  ['compliance API', `--client-id, --client-secret  or  ${c.userEnv}, ${c.secretEnv}`],
  ['conductor API', `--user, --secret  or  ${k.userEnv}, ${k.secretEnv}  (an rbac user, or root)`],
  ['server URL', `--url  or  ${c.urlEnv} / ${k.urlEnv}, then CC_URL  (default ${DEFAULT_URL})`],
])}

Output: aligned tables (bold headers on a terminal unless NO_COLOR is set); --json prints the API's JSON.

${EXIT_CODES_HELP}

Run '${PROGRAM} <group> --help' for a group's commands and '${PROGRAM} <group> <command> --help' for one command.

Example:
  ${c.userEnv}=cl_... ${c.secretEnv}=... ${PROGRAM} environments list
`;
}

export function groupHelp(group: Group): string {
  return `Usage: ${PROGRAM} ${group.name} <command> [arguments] [flags]

${sentence(`${group.summary} (${group.api} API)`)}

Commands:
${columns(group.commands.map((c) => [c.name, c.summary]))}

Run '${PROGRAM} ${group.name} <command> --help' for a command's arguments, flags and an example.
`;
}

export function commandHelp(group: Group, command: Command): string {
  const args = command.args ?? [];
  const own = command.flags ?? {};
  const parts = [
    `Usage: ${PROGRAM} ${group.name} ${command.name}${args.length > 0 ? ` ${argUsage(command)}` : ''} [flags]`,
    `${sentence(command.summary)}${command.description ? `\n${command.description}` : ''}`,
    ...(args.length > 0 ? [`Arguments:\n${columns(args.map((a) => [`<${a.name}>`, `${a.description}${a.optional ? ' (optional)' : ''}`]))}`] : []),
    ...(Object.keys(own).length > 0 ? [`Flags:\n${columns(flagRows(own))}`] : []),
    `Server and credentials (${group.api} API; flags win over the environment):\n${columns(flagRows(connectionFlags(group.api)))}`,
    `Output:\n${columns(flagRows(OUTPUT_FLAGS))}`,
    `Example${command.examples.length > 1 ? 's' : ''}:\n${command.examples.map((e) => `  ${e}`).join('\n')}`,
    'Exit codes: 0 success, 1 API error, 2 usage error, 3 server unreachable, 4 wait timed out, 5 scan ERROR or dry-run FAILED.',
  ];
  return `${parts.join('\n\n')}\n`;
}
