import { Command as Commander, Option, type OutputConfiguration } from 'commander';
import type { Command, FlagSpec, FlagValues, Group } from './command.js';
import { connectionFlags } from './connection.js';
import { API_HEADINGS, commandHelpAfter, FLAG_HEADINGS, groupHelpAfter, HELP_FLAG, HELP_LAYOUT, OUTPUT_FLAGS, PROGRAM, programHelpAfter, sentence } from './help.js';
import type { CliIO } from './output.js';

/** A command line commander accepted: the command of the table it names, its arguments, and its flags by name. */
export interface Invocation {
  group: Group;
  command: Command;
  args: ReadonlyArray<string | undefined>;
  values: FlagValues;
}

export const usageHint = (path: string) => `Run '${path} --help' for usage.`;

/** Help is wrapped to the terminal's width, or to 80 columns when it does not go to a terminal. */
const helpWidth = (stream: { isTTY?: boolean; columns?: number }) => (stream.isTTY && stream.columns ? stream.columns : 80);

/** Commander's output through `io`, and its errors as `compliance-conductor: <what is wrong>` (`reword` may reword them). */
function output(io: CliIO, reword: (message: string) => string = (message) => message): OutputConfiguration {
  return {
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    outputError: (text, write) => write(`${PROGRAM}: ${reword(text.replace(/^error: /, ''))}`),
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** A flag of the table as a commander option, listed under `heading` in help. */
function option(name: string, spec: FlagSpec, heading: string): Option {
  const placeholder = spec.value === undefined ? '<value>' : /^[<[]/.test(spec.value) ? spec.value : `<${spec.value}>`;
  const flags = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${placeholder}` : ''}`;
  const created = new Option(flags, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`).helpGroup(heading);
  return spec.multiple ? created.argParser(collect) : created;
}

/**
 * The command table as a commander program, `compliance-conductor <group> <command>`: commander parses the command
 * line, checks the arguments and flags against the table, and writes the help. A command line it refuses (an unknown
 * group, command or flag, a missing or extra argument, a flag without its value) is explained on stderr, followed by
 * where to find the usage, and rejects with a CommanderError of exit code 1, as help shown for want of a command
 * does; `--help` rejects with exit code 0. A command line it accepts goes to `run`.
 */
export function program(groups: readonly Group[], io: CliIO, run: (invocation: Invocation) => Promise<void>): Commander {
  const root = new Commander(PROGRAM)
    .usage('<group> <command> [arguments] [flags]')
    .description('The command line of the compliance and conductor APIs.')
    .configureHelp(HELP_LAYOUT)
    .configureOutput(output(io, (message) => message.replace(/^unknown command '/, "unknown command group '")))
    .exitOverride()
    .helpOption(HELP_FLAG.flags, HELP_FLAG.description)
    .helpCommand('help [group]', 'show the help of a group')
    .showHelpAfterError(usageHint(PROGRAM))
    .addHelpText('after', programHelpAfter());
  for (const group of groups) {
    const parent = root
      .commandsGroup(API_HEADINGS[group.api])
      .command(group.name)
      .summary(group.summary)
      .description(sentence(`${group.summary} (${group.api} API)`))
      .usage('<command> [arguments] [flags]')
      .helpCommand('help [command]', 'show the help of a command')
      .configureOutput(output(io, (message) => message.replace(/^unknown command ('[^']*')/, `unknown command $1 in ${group.name}`)))
      .showHelpAfterError(usageHint(`${PROGRAM} ${group.name}`))
      .addHelpText('after', groupHelpAfter(group));
    for (const command of group.commands) {
      const args = command.args ?? [];
      const leaf = parent
        .command(command.name)
        .summary(command.summary)
        .description(`${sentence(command.summary)}${command.description ? `\n${command.description}` : ''}`)
        .usage([...args.map((a) => (a.optional ? `[${a.name}]` : `<${a.name}>`)), '[flags]'].join(' '))
        .showHelpAfterError(usageHint(`${PROGRAM} ${group.name} ${command.name}`))
        .addHelpText('after', commandHelpAfter(command));
      for (const arg of args) leaf.argument(arg.optional ? `[${arg.name}]` : `<${arg.name}>`, arg.description);
      const flags = [
        ...Object.entries(command.flags ?? {}).map(([name, spec]) => [name, option(name, spec, FLAG_HEADINGS.own)] as const),
        ...Object.entries(connectionFlags(group.api)).map(([name, spec]) => [name, option(name, spec, FLAG_HEADINGS.connection(group.api))] as const),
        ...Object.entries(OUTPUT_FLAGS).map(([name, spec]) => [name, option(name, spec, FLAG_HEADINGS.output)] as const),
      ];
      for (const [, flag] of flags) leaf.addOption(flag);
      leaf.addHelpOption(new Option(HELP_FLAG.flags, HELP_FLAG.description).helpGroup(FLAG_HEADINGS.output));
      leaf.action(async () => {
        const given = leaf.opts();
        const values: FlagValues = Object.fromEntries(flags.map(([name, flag]) => [name, given[flag.attributeName()]]));
        await run({ group, command, args: leaf.processedArgs, values });
      });
    }
  }
  return root;
}
