import { Help, type Argument, type HelpConfiguration } from 'commander';
import type { Command, FlagSpec, Group } from './command.js';
import { CONNECTIONS, DEFAULT_URL } from './connection.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/*
 * The texts of `--help` that commander does not write itself: commander lays out the usage line, the description,
 * the arguments, the flags under their headings and the commands; these follow them.
 */

export const PROGRAM = 'compliance-conductor';

/** Flags every command takes besides its own and its API's connection flags (and `-h, --help`). */
export const OUTPUT_FLAGS: Record<string, FlagSpec> = {
  json: { type: 'boolean', description: 'print the API\'s JSON (pretty) instead of a table' },
};

export const HELP_FLAG = { flags: '-h, --help', description: 'show this help' } as const;

/** A summary as a sentence: capitalised, with a full stop. */
export const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** Where commander puts a command's flags: its own, its API's connection flags, then the output flags. */
export const FLAG_HEADINGS = {
  own: 'Flags:',
  connection: (api: Group['api']) => `Server and credentials (${api} API; flags win over the environment):`,
  output: 'Output:',
} as const;

export const API_HEADINGS: Record<Group['api'], string> = { compliance: 'Compliance API:', conductor: 'Conductor API:' };

const argumentTerm = (argument: Argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`);

/**
 * Commander's layout with three changes: arguments are listed as the usage line writes them (`<required>`,
 * `[optional]`), a command's line in a list shows its arguments but not `[options]` (every command takes flags), and
 * three spaces rather than two keep a term apart from its description.
 */
export const HELP_LAYOUT: HelpConfiguration = {
  argumentTerm,
  subcommandTerm: (command) => [command.name(), ...command.registeredArguments.map(argumentTerm)].join(' '),
  formatItem(this: Help, term, termWidth, description, helper) {
    return Help.prototype.formatItem.call(this, term, termWidth + 1, description, helper);
  },
};

export function programHelpAfter(): string {
  const c = CONNECTIONS.compliance;
  const k = CONNECTIONS.conductor;
  const rows: Array<[string, string]> = [
    ['compliance API', `--client-id, --client-secret  or  ${c.userEnv}, ${c.secretEnv}`],
    ['conductor API', `--user, --secret  or  ${k.userEnv}, ${k.secretEnv}  (an rbac user, or root)`],
    ['server URL', `--url  or  ${c.urlEnv} / ${k.urlEnv}, then CC_URL  (default ${DEFAULT_URL})`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return `
Server and credentials (a flag wins over its environment variable):
${rows.map(([name, text]) => `  ${name.padEnd(width)}   ${text}`).join('\n')}

Output: aligned tables (bold headers on a terminal unless NO_COLOR is set); --json prints the API's JSON.

${EXIT_CODES_HELP}

Run '${PROGRAM} <group> --help' for a group's commands and '${PROGRAM} <group> <command> --help' for one command.

Example:
  ${c.userEnv}=cl_... ${c.secretEnv}=... ${PROGRAM} environments list`;
}

export const groupHelpAfter = (group: Group): string =>
  `\nRun '${PROGRAM} ${group.name} <command> --help' for a command's arguments, flags and an example.`;

export const commandHelpAfter = (command: Command): string =>
  `
Example${command.examples.length > 1 ? 's' : ''}:
${command.examples.map((e) => `  ${e}`).join('\n')}

Exit codes: 0 success, 1 API error, 2 usage error, 3 server unreachable, 4 wait timed out, 5 scan ERROR or dry-run FAILED.`;
