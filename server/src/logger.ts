import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.js';

export interface LoggerOptions {
  level: LogLevel;
  /**
   * Where the lines go: standard output (default) or error, as one JSON object per line, or as readable colored
   * lines when that output is a terminal. Tests pass a stream of their own as `destination` to read the lines.
   */
  output?: 'stdout' | 'stderr';
  destination?: DestinationStream;
}

/**
 * Header and cookie paths the log never shows, whatever a line carries. Request lines hold no headers at all (see
 * http/request-log.ts); this catches a request or response object logged whole by mistake.
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-csrf-token"]',
];

/** The server's one logger; everything else logs through it or a child of it. */
export function createLogger(options: LoggerOptions): Logger {
  const fd = options.output === 'stderr' ? 2 : 1;
  const terminal = (fd === 2 ? process.stderr : process.stdout).isTTY;
  // JSON lines are written asynchronously: lines logged while a write is under way go out together in the next,
  // and the request thread never waits on the pipe (a write per request cost ~25 µs of its ~300). pino writes what
  // is left on exit; only a process killed outright (SIGKILL) can lose the lines of its last moments.
  const destination = options.destination ?? (terminal ? readableOutput(fd) : pino.destination({ dest: fd, sync: false }));
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * pino-pretty on the main thread, writing synchronously: a terminal is a person watching one server, and lines
 * written just before an exit are not lost.
 */
function readableOutput(fd: number): DestinationStream {
  return pretty({ colorize: true, sync: true, destination: fd, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
}
