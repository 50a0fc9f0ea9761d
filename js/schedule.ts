// When a read's work runs: tasks of the event loop, fetches paced a few at a time, progress,
// aborts, and the pool a read's options ask for.
import { codedError } from "./errors.js";
import { defaultPool, WorkerPool } from "./pool.js";

/** Resolvers waiting for a task of their own (browsers: one message each on `taskChannel`). */
const waitingTasks: (() => void)[] = [];
let taskChannel: MessageChannel | undefined;

/** A promise that resolves in a later task of the event loop (not a microtask). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;
    if (immediate) return void immediate(resolve);
    if (!taskChannel) {
      taskChannel = new MessageChannel();
      taskChannel.port1.onmessage = () => waitingTasks.shift()?.();
    }
    waitingTasks.push(resolve);
    taskChannel.port2.postMessage(null);
  });
}

/**
 * Runs at most `n` of the functions given to it at once; the others wait their turn, in
 * order, and each starts in the task that ended the one before it. The first `n` start in a
 * task each, so that a store answering at once (from memory) does not do all their work in
 * one long task.
 */
export function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (active < n) {
      if (active++) await nextTask();
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
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
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
