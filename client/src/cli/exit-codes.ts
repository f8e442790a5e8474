/** The CLI's exit codes; `--help` and the README list them, and scripts rely on them. */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** The API answered with an error status (its error is printed to stderr), or the command failed otherwise. */
  apiError: 1,
  /** The command line is wrong: unknown command or flag, missing argument or credentials, unreadable input file. */
  usage: 2,
  /** The server could not be reached (connection refused, unknown host, TLS or network failure). */
  network: 3,
  /** `--wait` gave up: the scan or dry-run had not finished within `--timeout`. */
  timeout: 4,
  /** The awaited work finished but failed: a scan ended in ERROR, a dry-run ended FAILED. */
  failed: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  the API answered an error (printed to stderr as "<status> <type or code>: <message>")
  2  usage error (unknown command or flag, missing argument or credentials, unreadable input)
  3  the server could not be reached
  4  a --wait timed out
  5  the awaited work failed: the scan ended in ERROR, or the dry-run ended FAILED`;

/** A mistake in the command line; the message says what, and the command's usage follows it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
