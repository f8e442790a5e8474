/**
 * What the domain writes to the operator's log: structured fields and a message, at a level. Declared here so that
 * use cases and job workers depend on no logging library; the server hands them its logger (pino has this shape),
 * tests may hand them one that keeps the lines.
 */
export interface Log {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /** A log whose every line also carries `fields`, e.g. the job id and kind of one job's lines. */
  child(fields: Record<string, unknown>): Log;
}

const nothing = () => {};

/** Writes nothing: for code built without a log, e.g. in unit tests. */
export const silentLog: Log = {
  debug: nothing,
  info: nothing,
  warn: nothing,
  error: nothing,
  child: () => silentLog,
};
