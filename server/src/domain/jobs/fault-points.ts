import { appendFileSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Named points in background work (`job:<kind>:claimed`, `job:<kind>:heartbeat`, …) where a test may have the
 * process die, so that a crash is placed at a point of the code rather than at a moment in time and can be
 * replayed. Whoever passes a point calls the hook, if there is one; a server configured without fault points has
 * none, and an optional call of an undefined function costs nothing, its argument not even being built.
 */
export type FaultPoint = (point: string) => void;

/** The fault a test arms: the process whose `hit`-th pass of `point` comes first dies there. */
export interface ArmedFault {
  id: string;
  point: string;
  hit: number;
}

/**
 * One line of the trace: a pass of a point, the how-many-th since the armed fault changed — counted across every
 * process sharing the armed file while a fault is armed (which server takes which job is the scheduler's choice, so
 * a hit counted per process would be reached or not by chance), and in this process otherwise.
 */
export interface FaultTraceLine {
  pid: number;
  point: string;
  hit: number;
  /** The id of the armed fault this pass claimed; the process dies right after writing the line. */
  fault?: string;
}

export interface FaultPointOptions {
  /**
   * A file naming the armed fault (JSON, an `ArmedFault`), read at every pass so that a test can arm one fault
   * after another in a running server. Hits are counted from the first pass that sees a new fault's id.
   */
  armedFile?: string;
  /** Every pass is appended to this file, a JSON `FaultTraceLine` a line. */
  traceFile?: string;
  /** How the process dies at the armed point: SIGKILL to itself, unless a unit test says otherwise. */
  die?: () => void;
  pid?: number;
}

/** The name an armed file is renamed to by the process that claims its fault. */
export const claimedFile = (armedFile: string): string => `${armedFile}.claimed`;

/**
 * The hook of a process, or undefined when neither file is configured (production). Two processes sharing the
 * armed file may both reach the armed hit; the one whose rename of the file succeeds is the one that dies.
 */
export function faultPoints(options: FaultPointOptions): FaultPoint | undefined {
  const { armedFile, traceFile } = options;
  if (!armedFile && !traceFile) return undefined;
  const pid = options.pid ?? process.pid;
  const die = options.die ?? (() => process.kill(pid, 'SIGKILL'));
  const hits = new Map<string, number>();
  let armedId: string | undefined;
  return (point) => {
    const armed = armedFile ? readArmed(armedFile) : undefined;
    if (armed && armed.id !== armedId) {
      armedId = armed.id;
      hits.clear();
    }
    const local = (hits.get(point) ?? 0) + 1;
    const hit = armed ? sharedPass(armedFile!, armed.id, point, local) : local;
    hits.set(point, hit);
    const fault = armed !== undefined && armed.point === point && armed.hit === hit && claim(armedFile!) ? armed.id : undefined;
    if (traceFile) {
      const line: FaultTraceLine = fault === undefined ? { pid, point, hit } : { pid, point, hit, fault };
      appendFileSync(traceFile, `${JSON.stringify(line)}\n`);
    }
    if (fault !== undefined) die();
  };
}

/**
 * The how-many-th pass of `point` this is among the processes sharing the armed file, since `faultId` was armed:
 * making a directory is atomic, so of the processes racing for the n-th pass, one makes `…/<n>` and the others go on
 * to n+1. `from` is where this process may start looking (its own count is never above the shared one). If the
 * directory cannot be made (the test removed it), the process's own count stands.
 */
function sharedPass(armedFile: string, faultId: string, point: string, from: number): number {
  const dir = join(`${armedFile}.passes`, encodeURIComponent(`${faultId} ${point}`));
  try {
    mkdirSync(dir, { recursive: true });
    for (let n = from; ; n += 1) {
      try {
        mkdirSync(join(dir, String(n)));
        return n;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } catch {
    return from;
  }
}

function readArmed(file: string): ArmedFault | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // nothing armed, or claimed by another process
  }
  try {
    const armed = JSON.parse(text) as ArmedFault;
    return typeof armed.id === 'string' && typeof armed.point === 'string' && Number.isInteger(armed.hit) ? armed : undefined;
  } catch {
    return undefined;
  }
}

/** Renaming is atomic: of the processes (and the test withdrawing the fault) racing for the file, one wins. */
function claim(armedFile: string): boolean {
  try {
    renameSync(armedFile, claimedFile(armedFile));
    return true;
  } catch {
    return false;
  }
}
