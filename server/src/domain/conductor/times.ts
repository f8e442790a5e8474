import { AppError, type ErrorDetail } from '../errors.js';
import type { TimeWindow } from './types.js';

/** Conductor query times: `mm/dd/YYYY HH:MM`, UTC (seed 001 §2). */
const FORMAT = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2})$/;

/** The first second of the minute a query time names, or undefined when it is not a real `mm/dd/YYYY HH:MM`. */
export function parseQueryTime(value: string): number | undefined {
  const match = FORMAT.exec(value);
  if (!match) return undefined;
  const [month, day, year, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  const date = new Date(ms);
  // Date.UTC rolls 02/30 over into March: a date that does not survive the round trip does not exist.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59) return undefined;
  return ms / 1000;
}

const badTime = (field: 'start' | 'end', message: string): ErrorDetail => ({ code: `query.${field}`, message, location: `query.${field}` });

/**
 * The window `start` and `end` select: from the first second of `start`'s minute to the last second of `end`'s
 * minute, both included. A malformed time, or `start` after `end`, is a 400.
 */
export function queryWindow(start: string | undefined, end: string | undefined): TimeWindow {
  const problems: ErrorDetail[] = [];
  const from = start === undefined ? undefined : parseQueryTime(start);
  const to = end === undefined ? undefined : parseQueryTime(end);
  if (start !== undefined && from === undefined) problems.push(badTime('start', `start must be a real date and time formatted mm/dd/YYYY HH:MM (UTC), got '${start}'`));
  if (end !== undefined && to === undefined) problems.push(badTime('end', `end must be a real date and time formatted mm/dd/YYYY HH:MM (UTC), got '${end}'`));
  if (from !== undefined && to !== undefined && from > to) problems.push(badTime('start', `start (${start}) is later than end (${end})`));
  if (problems.length > 0) throw new AppError('bad_request', 'Bad request', { details: problems });
  return { ...(from !== undefined && { from }), ...(to !== undefined && { to: to + 59 }) };
}
