/** How one attempt of a job ended: done, failed with an attempt left, or failed for good. */
/** `lease_lost`: another worker took the job over while this one ran (its lease ran out); it carries on. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'given_up' | 'lease_lost';

/** What the job queue counts for the operator's metrics; the server backs it with Prometheus metrics. */
export interface JobMetrics {
  attemptStarted(kind: string): void;
  attemptEnded(kind: string, outcome: AttemptOutcome, seconds: number): void;
  /** A job whose worker vanished with no attempt left was given up without a last attempt. */
  abandoned(kind: string): void;
}

/** Counts nothing: for a queue built without metrics, e.g. in unit tests. */
export const uncountedJobs: JobMetrics = {
  attemptStarted: () => {},
  attemptEnded: () => {},
  abandoned: () => {},
};
