import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { ServerProcess, serverBuild } from './server-process.js';
import { expect } from './expect.js';

/**
 * Every shell and TypeScript example of README.md and client/README.md, run in order as a reader runs them: from a
 * scratch directory standing for the repository's root (each of its entries linked, but for a `data/` of its own),
 * against a fresh demo server started there as `make run` starts it, and the stateful mock of `make mock` for the
 * blocks marked so. Ports 3000 and 4000 in the examples become the test servers' free ports.
 *
 * An HTML comment on the line before a block says when it runs otherwise (README.md, "Tests"):
 * - `<!-- example: mock -->`: needs the stateful mock;
 * - `<!-- example: set-up -->`, `<!-- example: uses set-up -->`: a TypeScript block, and those that run after it
 *   (their imports merged with its own), as parts of one program;
 * - `<!-- example: not run — why -->`: left out (it starts, stops or installs the project itself, say).
 * Unmarked `sh`/`bash` and `ts` blocks run; blocks of any other language (`text`, none) are not commands.
 *
 * The shell blocks of a file share what a terminal would: the variables one sets are there in the next (and in the
 * TypeScript blocks' environment). They run with `set -euo pipefail`; curl fails on an error status
 * (`--fail-with-body`) unless the example shows the status line (`-i`), so an example answered 4xx or 5xx fails.
 * Each example is a test named by its file and line; run alone (`-t`), it runs the examples before it first, as the
 * set-up it relies on.
 */

type Language = 'sh' | 'ts';

interface Example {
  file: string;
  /** The line of the opening fence, counted from 1. */
  line: number;
  language: Language;
  code: string;
  mock: boolean;
  /** The `set-up` block a `uses set-up` block runs after. */
  setUp: string | undefined;
}

const README_FILES = ['README.md', 'client/README.md'];
const LANGUAGES: Record<string, Language> = { sh: 'sh', bash: 'sh', shell: 'sh', ts: 'ts', typescript: 'ts' };
const MARKER = /^<!-- example: (.+) -->$/;
const NOT_RUN = /^not run — \S/;

function extractExamples(file: string): Example[] {
  const lines = readFileSync(join(PROJECT_ROOT, file), 'utf8').split('\n');
  const examples: Example[] = [];
  let markers: string[] = [];
  let setUp: string | undefined;
  for (let at = 0; at < lines.length; at += 1) {
    const where = `${file}:${at + 1}`;
    const marker = MARKER.exec(lines[at]!);
    if (marker) {
      const value = marker[1]!;
      if (!['mock', 'set-up', 'uses set-up'].includes(value) && !NOT_RUN.test(value)) throw new Error(`${where}: unknown example marker '${value}'`);
      markers.push(value);
      continue;
    }
    const fence = /^```(\S*)/.exec(lines[at]!);
    if (!fence) {
      if (markers.length > 0) throw new Error(`${where}: an example marker must stand on the line right before a fenced block`);
      continue;
    }
    const close = lines.findIndex((line, index) => index > at && line === '```');
    if (close === -1) throw new Error(`${where}: the fenced block is not closed`);
    const language = LANGUAGES[fence[1]!];
    const code = lines.slice(at + 1, close).join('\n');
    if (markers.length > 0 && !language) throw new Error(`${where}: a marker on a block that is not run anyway (\`\`\`${fence[1]})`);
    if (markers.some((m) => NOT_RUN.test(m)) && markers.length > 1) throw new Error(`${where}: a block not run takes no other marker`);
    if ((markers.includes('set-up') || markers.includes('uses set-up')) && language !== 'ts') throw new Error(`${where}: set-up markers are for TypeScript blocks`);
    if (markers.includes('uses set-up') && setUp === undefined) throw new Error(`${where}: 'uses set-up' with no 'set-up' block before it`);
    if (language && !markers.some((m) => NOT_RUN.test(m))) {
      if (!markers.includes('mock') && /127\.0\.0\.1:4000|make mock-reset/.test(code)) throw new Error(`${where}: calls the stateful mock (port 4000) without the 'mock' marker`);
      examples.push({ file, line: at + 1, language, code, mock: markers.includes('mock'), setUp: markers.includes('uses set-up') ? setUp : undefined });
    }
    if (markers.includes('set-up')) setUp = code;
    markers = [];
    at = close;
  }
  return examples;
}

const EXAMPLES = README_FILES.flatMap(extractExamples);

/** One TypeScript program of a `set-up` block and one using it: their named imports of a module merged into one import. */
function afterSetUp(setUp: string, code: string): string {
  const imports = new Map<string, Set<string>>();
  const rest: string[] = [];
  for (const line of `${setUp}\n${code}`.split('\n')) {
    const named = /^import \{ ([^}]+) \} from '([^']+)';$/.exec(line);
    if (!named) {
      rest.push(line);
      continue;
    }
    const names = imports.get(named[2]!) ?? new Set<string>();
    for (const name of named[1]!.split(',')) names.add(name.trim());
    imports.set(named[2]!, names);
  }
  return [...[...imports].map(([from, names]) => `import { ${[...names].join(', ')} } from '${from}';`), ...rest].join('\n');
}

/**
 * A reader's environment: none of the server's, the CLI's or npm's variables of this run, and no node_modules/.bin on
 * PATH (an example that needs it there says so).
 */
function readerEnv(): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([name, value]) => value !== undefined && (['HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SHELL'].includes(name) || name.startsWith('PYENV')),
  ) as Array<[string, string]>;
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !/node_modules|node-gyp-bin/.test(dir))
    .join(delimiter);
  return { ...Object.fromEntries(kept), PATH: path };
}

/** Variables a shell sets itself, or that would mislead the next block: not carried from one block to the next. */
const SHELL_OWN =
  'BASH.*|_|__readme_.*|RANDOM|SRANDOM|SECONDS|LINENO|EPOCHREALTIME|EPOCHSECONDS|PIPESTATUS|FUNCNAME|GROUPS|HISTCMD|OPTIND|OPTARG|OPTERR|PWD|OLDPWD|SHLVL|PPID|UID|EUID|SHELLOPTS|COLUMNS|LINES|DIRSTACK|HOSTNAME|HOSTTYPE|IFS|MACHTYPE|OSTYPE|PS1|PS2|PS4|COMP_WORDBREAKS|MAILCHECK';

/**
 * The script that runs one example: the variables earlier blocks left loaded, curl failing on an error status
 * unless the status line is shown, then the example under `set -euo pipefail`; on exit, the variables it set or
 * changed are saved for the next.
 */
function shellScript(body: string, state: string): string {
  return `__readme_state=${JSON.stringify(state)}
__readme_names() { compgen -v | grep -Ev '^(${SHELL_OWN})$' || true; }
declare -A __readme_before=()
for __readme_n in $(__readme_names); do __readme_before[$__readme_n]=$(declare -p "$__readme_n" 2>/dev/null); done
__readme_save() {
  set +euo pipefail
  local __readme_d
  for __readme_n in $(__readme_names); do
    __readme_d=$(declare -p "$__readme_n" 2>/dev/null) || continue
    [[ $__readme_d =~ ^declare\\ -[a-zA-Z]*r ]] && continue
    [[ "\${__readme_before[$__readme_n]-}" == "$__readme_d" ]] || printf '%s\\n' "$__readme_d"
  done > "$__readme_state"
}
if [[ -f $__readme_state ]]; then source "$__readme_state"; fi
curl() {
  local arg
  for arg in "$@"; do
    if [[ $arg == --include || $arg =~ ^-[a-zA-Z]*i[a-zA-Z]*$ ]]; then command curl --no-progress-meter "$@"; return; fi
  done
  command curl --no-progress-meter --fail-with-body "$@"
}
trap __readme_save EXIT
set -euo pipefail
${body}
`;
}

interface Run {
  code: number | null;
  output: string;
}

/** Runs bash on a script in `cwd`, its stdout and stderr together in the order they came; killed (its process group) after `timeoutMs`. */
function bash(script: string, cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // It ended meanwhile.
      }
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const EXAMPLE_TIMEOUT_MS = 120_000;

describe('the examples of README.md and client/README.md, run as written against a fresh demo server', () => {
  let work: string;
  let mockData: string;
  let server: ServerProcess;
  let mock: ServerProcess;
  const outcomes = new Map<number, Run>();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'readme-examples-'));
    for (const entry of await readdir(PROJECT_ROOT)) {
      if (!['data', 'reports', 'coverage', '.git'].includes(entry)) await symlink(join(PROJECT_ROOT, entry), join(work, entry));
    }
    await mkdir(join(work, '.examples'));
    mockData = await mkdtemp(join(tmpdir(), 'readme-examples-mock-'));
    const build = serverBuild();
    server = new ServerProcess({ ...readerEnv(), DEMO_DATA: 'true' }, { cwd: work, build });
    mock = new ServerProcess(
      {
        ...readerEnv(),
        MOCK_RESET: 'true',
        // `large` is made on its first load, if this suite loads it at all, not at start.
        MOCK_LARGE_AT_START: 'false',
        DATABASE_URL: `sqlite:${join(mockData, 'mock.db')}`,
        CONDUCTOR_ROOT_SECRET_FILE: join(mockData, 'conductor-root-secret'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(mockData, 'console-admin-password'),
      },
      { cwd: work, build },
    );
    // The mock is awaited by the first example that needs it: it starts while the examples before it run.
    await server.ready;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), mock?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
    if (mockData) await rm(mockData, { recursive: true, force: true });
  }, 30_000);

  /** Runs one example in the scratch directory, with the variables the shell blocks before it of its file left. */
  async function execute(index: number): Promise<Run> {
    const example = EXAMPLES[index]!;
    const mockPort = example.mock ? await mock.ready : undefined;
    const ports = (text: string) =>
      text.replaceAll('127.0.0.1:3000', `127.0.0.1:${server.port}`).replaceAll('127.0.0.1:4000', `127.0.0.1:${mockPort ?? 4000}`);
    const state = join(work, '.examples', `${example.file.replace(/\W/g, '-')}.state`);
    let body = ports(example.code);
    if (example.language === 'ts') {
      const program = join(work, '.examples', `${example.file.replace(/\W/g, '-')}-${example.line}.mts`);
      await writeFile(program, example.setUp === undefined ? body : afterSetUp(ports(example.setUp), body));
      body = `${JSON.stringify(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'))} ${JSON.stringify(program)}`;
    }
    const env = { ...readerEnv(), ...(mockPort === undefined ? {} : { MOCK_PORT_STATEFUL: String(mockPort) }) };
    return bash(shellScript(body, state), work, env, EXAMPLE_TIMEOUT_MS);
  }

  /** Alone (`-t`), an example first runs those before it, which it may rely on as a reader would. */
  async function runBefore(index: number): Promise<void> {
    for (let earlier = 0; earlier < index; earlier += 1) {
      if (!outcomes.has(earlier)) outcomes.set(earlier, await execute(earlier));
    }
  }

  EXAMPLES.forEach((example, index) => {
    const name = `${example.file}:${example.line} (${example.language}${example.mock ? ', stateful mock' : ''})`;
    it(
      name,
      async () => {
        await runBefore(index);
        const run = await execute(index);
        outcomes.set(index, run);
        const failedBefore = [...outcomes]
          .filter(([earlier, outcome]) => earlier < index && outcome.code !== 0)
          .map(([earlier]) => `${EXAMPLES[earlier]!.file}:${EXAMPLES[earlier]!.line}`);
        const serverLog = (example.mock ? mock : server).tail(15);
        expect(
          run.code,
          `${name} exited ${run.code}${failedBefore.length > 0 ? ` (examples before it failed too: ${failedBefore.join(', ')})` : ''}\n` +
            `--- the example\n${example.code}\n--- its output\n${run.output}\n--- the ${example.mock ? 'stateful mock' : 'server'}'s last lines\n${serverLog}`,
        ).toBe(0);
      },
      EXAMPLE_TIMEOUT_MS * 3,
    );
  });
});
