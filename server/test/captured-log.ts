import type { Logger } from 'pino';
import { createLogger } from '../src/logger.js';

export type LogRecord = Record<string, any>;

/** The server's logger (JSON lines, every level from debug up) writing into memory, for tests to read. */
export class CapturedLog {
  readonly lines: string[] = [];
  readonly logger: Logger = createLogger({ level: 'debug', destination: { write: (line: string) => void this.lines.push(line) } });

  /** Everything written, as it would reach standard output. */
  get text(): string {
    return this.lines.join('');
  }

  records(): LogRecord[] {
    return this.lines.map((line) => JSON.parse(line) as LogRecord);
  }

  /** The request line of the request with this id. */
  requestLine(requestId: string): LogRecord | undefined {
    return this.records().find((record) => record.requestId === requestId && record.status !== undefined);
  }
}
