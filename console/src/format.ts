const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** Unix seconds as a local date and time. */
export const formatTime = (seconds: number): string => dateTime.format(new Date(seconds * 1000));

/** Unix seconds as a local date. */
export const formatDate = (seconds: number): string => dateOnly.format(new Date(seconds * 1000));

/** Unix seconds as an ISO timestamp, for the `dateTime` attribute and tooltips. */
export const isoTime = (seconds: number): string => new Date(seconds * 1000).toISOString();

const UNITS: ReadonlyArray<[seconds: number, singular: string, plural: string]> = [
  [365 * 86_400, 'year', 'years'],
  [30 * 86_400, 'month', 'months'],
  [86_400, 'day', 'days'],
  [3_600, 'hour', 'hours'],
  [60, 'minute', 'minutes'],
];

/** A duration in seconds as its largest whole unit ("3 days"); a secret's age needs no more precision. */
export function formatDuration(seconds: number): string {
  for (const [size, singular, plural] of UNITS) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${count === 1 ? singular : plural}`;
  }
  return 'under a minute';
}
