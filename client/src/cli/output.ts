/** Where the CLI writes and what it reads from its surroundings; `main` takes one so tests can inject their own. */
export interface CliIO {
  /** `columns` is the terminal's width, which help (wrapped by commander) and a progress line (progress.ts) keep within. */
  stdout: { write(chunk: string | Uint8Array): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(chunk: string): unknown; isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  /** Numbers read better right-aligned. */
  align?: 'right';
  /** Free text (messages, names) is cut to this width so one long value does not push every other column away. */
  max?: number;
}

/** Renders a cell: absent values as `-`, booleans as yes/no, lists comma-separated, times already formatted. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  // Line breaks would split a row.
  return String(value).replace(/\s*\n\s*/g, ' ');
}

const cut = (text: string, max: number | undefined) => (max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Unix seconds as `2026-06-01 12:00:00Z` (UTC), or `-`. */
export function time(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** Output of one command: the API's JSON with `--json`, otherwise aligned tables and key/value blocks. */
export class Output {
  constructor(
    private readonly io: CliIO,
    readonly json: boolean,
  ) {}

  /** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
  private get styled(): boolean {
    return this.io.stdout.isTTY === true && !this.io.env.NO_COLOR;
  }

  /** Prints `value` as pretty JSON with `--json`, otherwise runs `render`. */
  show<T>(value: T, render: (value: T) => void): void {
    if (this.json) this.printJson(value);
    else render(value);
  }

  printJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  line(text = ''): void {
    this.io.stdout.write(`${text}\n`);
  }

  /** A remark about the output (e.g. that a list goes on); stderr, so stdout stays parseable. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  bytes(data: Uint8Array): void {
    this.io.stdout.write(data);
  }

  /** An aligned table: a header row, then one row per item; columns two spaces apart, no trailing spaces. */
  table<Row>(rows: readonly Row[], columns: ReadonlyArray<Column<Row>>): void {
    const cells = rows.map((row) => columns.map((column) => cut(cell(column.value(row)), column.max)));
    const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((r) => r[i]!.length)));
    const render = (values: readonly string[]) =>
      values
        .map((value, i) => (columns[i]!.align === 'right' ? value.padStart(widths[i]!) : value.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    const header = render(columns.map((c) => c.header));
    this.line(this.styled ? `\x1b[1m${header}\x1b[0m` : header);
    for (const row of cells) this.line(render(row));
  }

  /** A key/value block for one object: labels aligned, values rendered like table cells. */
  fields(pairs: ReadonlyArray<readonly [string, unknown]>): void {
    const width = Math.max(...pairs.map(([label]) => label.length)) + 1;
    for (const [label, value] of pairs) {
      const key = `${label}:`.padEnd(width);
      this.line(`${this.styled ? `\x1b[1m${key}\x1b[0m` : key}  ${cell(value)}`);
    }
  }
}
