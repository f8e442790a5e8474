import type { ComplianceClient, ConductorClient } from './clients.js';
import { unwrap } from './errors.js';
import type { components as ComplianceComponents } from './generated/compliance.js';
import type { components as ConductorComponents } from './generated/conductor.js';

export type Scan = ComplianceComponents['schemas']['Scan'];
/** A scan as `GET /scans/{scan_id}` returns it: with its compliance summary. */
export type ScanWithSummary = ComplianceComponents['schemas']['ScanWithSummary'];
export type DryRun = ConductorComponents['schemas']['DryRun'];

export interface WaitOptions<Current = unknown> {
  /** Give up after this long (default 10 minutes) with a `WaitTimeoutError`. */
  timeoutMs?: number;
  /** Pause between polls (default 2 s for scans; for dry-runs, only when the server answers early without a result). */
  intervalMs?: number;
  /** Stops waiting; the wait rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the state read at each poll, the final one included. */
  onProgress?: (current: Current) => void;
}

/** The thing waited for did not finish in time; `last` is the state read last. */
export class WaitTimeoutError<Last = unknown> extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly timeoutMs: number,
    readonly last: Last | undefined,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** The longest wait `GET /dry-run/{id}?timeout=` accepts. */
const DRY_RUN_MAX_WAIT_SECONDS = 60;

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new Error('aborted');

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Polls `GET /scans/{scan_id}` until the scan is no longer `IN_PROGRESS`, and returns it. */
export async function waitForScan(client: ComplianceClient, scanId: string, options: WaitOptions<ScanWithSummary> = {}): Promise<ScanWithSummary> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, intervalMs = 2_000, signal, onProgress } = options;
  const deadline = Date.now() + timeoutMs;
  let last: ScanWithSummary | undefined;
  for (;;) {
    signal?.throwIfAborted();
    last = await unwrap(client.GET('/scans/{scan_id}', { params: { path: { scan_id: scanId } }, signal }));
    onProgress?.(last);
    if (last.status !== 'IN_PROGRESS') return last;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(`scan ${scanId} was still IN_PROGRESS after ${timeoutMs} ms`, timeoutMs, last);
    await sleep(Math.min(intervalMs, left), signal);
  }
}

const isFinished = (dryRun: DryRun) => dryRun.status === 'SUCCEEDED' || dryRun.status === 'FAILED';

/**
 * Waits until the dry-run is `SUCCEEDED` or `FAILED`, and returns it. Long-polls `GET /dry-run/{id}?timeout=N`
 * (N at most 60 s, the server's cap), so the answer comes as soon as the result is ready.
 */
export async function waitForDryRun(client: ConductorClient, id: string, options: WaitOptions<DryRun> = {}): Promise<DryRun> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, intervalMs = 1_000, signal, onProgress } = options;
  const deadline = Date.now() + timeoutMs;
  let last: DryRun | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const waitSeconds = Math.max(0, Math.min(DRY_RUN_MAX_WAIT_SECONDS, Math.floor((deadline - Date.now()) / 1000)));
    const asked = Date.now();
    last = await unwrap(client.GET('/dry-run/{id}', { params: { path: { id }, query: { timeout: waitSeconds } }, signal }));
    onProgress?.(last);
    if (isFinished(last)) return last;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(`dry-run ${id} was still ${last.status} after ${timeoutMs} ms`, timeoutMs, last);
    // A server that answered before the wait it was asked for (one that does not long-poll) is polled at intervals.
    if (Date.now() - asked < waitSeconds * 1000 || waitSeconds === 0) await sleep(Math.min(intervalMs, left), signal);
  }
}
