// When a read's work runs: tasks of the event loop, fetches paced a few at a time, this thread's
// work cut into slices that leave the event loop its turn, progress, aborts, and the pool a
// read's options ask for.
import { onAbort } from "../common/abort.js";
import { codedError } from "../common/errors.js";
import { defaultPool, WorkerPool } from "../pool/pool.js";
import { nextTask } from "../common/tasks.js";

/** Runs `work` on each item, at most `n` at once; rejects with the first failure (and starts no item after it). */
export async function eachLimited<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
}

/**
 * Runs at most `n` of the functions given to it at once; the others wait their turn, in
 * order, and each starts in the task that ended the one before it. The first `n` start in a
 * task each, so that a store answering at once (from memory) does not do all their work in
 * one long task.
 */
export function limiter(n: number, hop = true) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (active < n) {
      if (active++ && hop) await nextTask();
    } else {
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await f();
    } finally {
      // The place goes to the next waiting function, if any.
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * How long this thread works on reads before the event loop gets a turn: half a frame at 60 Hz,
 * so that a page still draws every frame and answers input and timers (an abort, say) within one.
 */
export const SLICE_MS = 8;

/** When this thread's current slice of read work began; undefined once its task has ended. */
let sliceStart: number | undefined;
/** How long the last piece of work took: what the next one is expected to take. */
let expected = 0;
/** Pieces of work waiting for their turn, first come first served, and those told to go. */
const waitingTurns: (() => void)[] = [];
let going = 0;

function roomInSlice(): boolean {
  return sliceStart === undefined || performance.now() - sliceStart + expected <= SLICE_MS;
}

/**
 * Runs `work` (a chunk's decode, say) on this thread in turn with the event loop, for every read
 * at once. A store that answers from memory resolves each fetch in a microtask, so without this
 * a whole read would run in one task. A piece of work with no slice open begins one and queues
 * the task that ends it; a piece that would take the slice past SLICE_MS (if it takes as long as
 * the last one did) waits in line, and the task that ends the slice lets the first in line go
 * in the next one. Only one waiting piece is woken at a time. A piece longer than the slice
 * runs in a task of its own.
 */
export async function inTurn<T>(work: () => T): Promise<T> {
  if (waitingTurns.length || going || !roomInSlice()) {
    await new Promise<void>((resolve) => waitingTurns.push(resolve));
    going--;
  }
  if (sliceStart === undefined) {
    sliceStart = performance.now();
    void nextTask().then(() => {
      sliceStart = undefined;
      next();
    });
  }
  const started = performance.now();
  try {
    return work();
  } finally {
    expected = performance.now() - started;
    // The next in line goes in this slice while it has room; otherwise when the slice ends.
    if (roomInSlice()) next();
  }
}

/** Lets the first piece of work in line go. */
function next(): void {
  const first = waitingTurns.shift();
  if (!first) return;
  going++;
  first();
}

/** A function to call as each of `total` chunks is done: it reports to `onProgress`. */
export function progress(options: { onProgress?: (done: number, total: number) => void }, total: number) {
  let done = 0;
  return (_?: unknown) => options.onProgress?.(++done, total);
}

/**
 * `work`, or its signal's reason (an AbortError) as soon as the signal fires: a read's
 * promise settles when it is aborted, not when its last fetch or decode ends.
 */
export function untilAborted<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    // (One listener on the signal for every read waiting on it: see js/common/abort.ts.)
    const off = onAbort(signal, () => reject(signal.reason));
    work.then(resolve, reject).finally(off);
  });
}

/** The pool a read's options ask for, if any. */
export function poolOf(options: { pool?: WorkerPool | boolean }): WorkerPool | undefined {
  const pool = options.pool as unknown;
  if (pool === true) return defaultPool();
  if (pool === undefined || pool === null || pool === false) return undefined;
  if (!(pool instanceof WorkerPool)) {
    throw codedError("INVALID_ARGUMENT", `options.pool must be a WorkerPool, true (the default pool) or false, got ${typeof pool === "string" ? JSON.stringify(pool) : typeof pool}`);
  }
  return pool;
}
