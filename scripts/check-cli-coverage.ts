import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GROUPS } from '../client/src/cli/main.js';
import { ROOT } from './root.js';

/**
 * Every command of the CLI's command table must have run successfully in the tests at least once.
 *
 * The CLI's suite (server/test/cli.test.ts) appends `<group> <command>` to CLI_COMMANDS_FILE for each run that
 * exited 0 (help aside), whichever of its tests runs, alone or with the others; `make test-unit` empties
 * reports/exercised/ before jest and runs this script after it, which fails naming the commands that never ran
 * successfully. The file is plain text, not JSON lines: every `*.jsonl` under reports/exercised/ is read by the
 * spec coverage (contract-tests/coverage.ts) as exercised response statuses.
 */
export const CLI_COMMANDS_FILE = join(ROOT, 'reports', 'exercised', 'cli-commands.txt');

/** Records that `command` (`<group> <command>`) ran successfully. */
export function recordCliCommand(command: string, file = CLI_COMMANDS_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${command}\n`);
}

/** `<group> <command>` of every command of the table, in the table's order. */
export const tableCommands = (): string[] => GROUPS.flatMap((group) => group.commands.map((command) => `${group.name} ${command.name}`));

/** The commands of `commands` that `file` never recorded, in their order. */
export function neverRan(commands: readonly string[], file = CLI_COMMANDS_FILE): string[] {
  const ran = new Set(existsSync(file) ? readFileSync(file, 'utf8').split('\n').map((line) => line.trim()) : []);
  return commands.filter((command) => !ran.has(command));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const commands = tableCommands();
  const missing = neverRan(commands);
  if (!existsSync(CLI_COMMANDS_FILE)) {
    console.error(`CLI coverage: ${CLI_COMMANDS_FILE.replace(`${ROOT}/`, '')} does not exist: the CLI's suite (server/test/cli.test.ts) did not run`);
    process.exitCode = 1;
  } else if (missing.length > 0) {
    console.error(`CLI coverage: ${missing.length} of ${commands.length} commands never ran successfully in the tests:\n  ${missing.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log(`CLI coverage: all ${commands.length} commands ran successfully in the tests`);
  }
}
