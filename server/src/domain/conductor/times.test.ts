import { describe, it } from '@jest/globals';
import { AppError } from '../errors.js';
import { parseQueryTime, queryWindow } from './times.js';
import { expect } from '../../../test/expect.js';

describe('conductor query times (mm/dd/YYYY HH:MM, UTC)', () => {
  it('reads a time as the first second of its minute, in UTC', () => {
    expect(parseQueryTime('03/14/2025 09:30')).toBe(Date.UTC(2025, 2, 14, 9, 30) / 1000);
    expect(parseQueryTime('12/31/1999 23:59')).toBe(Date.UTC(1999, 11, 31, 23, 59) / 1000);
  });

  it('refuses what is not a real date and time', () => {
    for (const bad of ['2025-03-14 09:30', '3/14/2025 09:30', '02/29/2025 10:00', '04/31/2025 10:00', '03/14/2025 24:00', '03/14/2025 09:60', '03/14/2025 09:30Z', '']) {
      expect(parseQueryTime(bad), bad).toBeUndefined();
    }
    expect(parseQueryTime('02/29/2024 10:00')).toBe(Date.UTC(2024, 1, 29, 10) / 1000);
  });

  it('keeps start inclusive and end to the last second of its minute', () => {
    const from = Date.UTC(2025, 2, 14, 9, 30) / 1000;
    expect(queryWindow('03/14/2025 09:30', '03/14/2025 09:30')).toEqual({ from, to: from + 59 });
    expect(queryWindow(undefined, undefined)).toEqual({});
    expect(queryWindow('03/14/2025 09:30', undefined)).toEqual({ from });
  });

  it('answers 400 naming the parameter for a malformed time, and for start after end', () => {
    const problem = (start?: string, end?: string) => {
      try {
        queryWindow(start, end);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return (error as AppError).details.map((d) => d.location);
      }
      throw new Error('no error');
    };
    expect(problem('nope')).toEqual(['query.start']);
    expect(problem(undefined, '13/01/2025 00:00')).toEqual(['query.end']);
    expect(problem('03/14/2025 09:31', '03/14/2025 09:30')).toEqual(['query.start']);
  });
});
