/**
 * Processes seen through `/proc` (Linux): who descends from whom, and who is still alive. Used to check
 * that a test, a bench or a script leaves nothing running. Elsewhere the functions report nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** True when the platform has `/proc` to read. */
export const CAN_SEE_PROCESSES = process.platform === 'linux';

/** The parent of `pid`, or `undefined` when it has ended (or cannot be read). */
export function parentOf(pid: number): number | undefined {
  try {
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `) `.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

/** Every running process id (empty where there is no `/proc`). */
export function allProcesses(): number[] {
  if (!CAN_SEE_PROCESSES) return [];
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** The processes below `pid` (children, their children, …), not `pid` itself. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const each of allProcesses()) {
    const parent = parentOf(each);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), each]);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** True while `pid` runs (a zombie, ended but not yet reaped, counts as ended). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2, stat.lastIndexOf(') ') + 3) !== 'Z';
  } catch {
    return !CAN_SEE_PROCESSES;
  }
}

/** The command line of `pid`, for messages (`''` when it cannot be read). */
export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 300);
  } catch {
    return '';
  }
}

/** Resolves with the processes of `pids` still alive once all have ended or `timeoutMs` passed. */
export async function survivorsAfter(pids: readonly number[], timeoutMs = 3000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = alive.filter(isAlive);
  }
  return alive;
}
