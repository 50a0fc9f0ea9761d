// A pool whose workers say what they are given and end when told, for tests that need to see
// inside a pool through its public options only: the package's own worker script
// (dist/worker.js) behind this file, which WorkerPool starts as its `workerUrl`. In a worker,
// this file reports each message the script receives on a BroadcastChannel (its thread, how
// many decode jobs it has had, whether it assembles a read's output, when it was received)
// and ends the thread (exit code 1, as a crash would) when the test names it.
import { BroadcastChannel, isMainThread, parentPort, threadId } from "node:worker_threads";

const CHANNEL = "zarr-wasm-codecs pool probe";

if (!isMainThread) {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = ({ data }) => {
    if (data.end === threadId) process.exit(1);
  };
  let jobs = 0;
  let assembles = false;
  // The worker script listens on parentPort: each message is seen here first.
  const on = parentPort.on.bind(parentPort);
  parentPort.on = (event, listener) =>
    on(event, event !== "message" ? listener : (message) => {
      if (message.op === "begin") assembles = true;
      if (message.op === "decode") jobs++;
      // The process's clock (every thread's time origin plus its now).
      const at = performance.timeOrigin + performance.now();
      channel.postMessage({ thread: threadId, jobs, assembles, job: message.op === "decode", at });
      listener(message);
    });
  await import(new URL("../../../dist/worker.js", import.meta.url).href);
}

/**
 * A WorkerPool of `size` probed workers: `workers`, what each has last reported (by thread
 * id); `jobs()`, the decode jobs they have received in all; `jobsSince(at)`, those received
 * after `at` (see `now()`); `end(thread)`; `until(condition)`, which polls; `close()`, which
 * terminates the pool.
 */
export async function probedPool(size) {
  const { WorkerPool } = await import("zarr-wasm-codecs");
  const channel = new BroadcastChannel(CHANNEL);
  // The test's own event loop is not held by the channel.
  channel.unref();
  const workers = new Map();
  const received = [];
  channel.onmessage = ({ data }) => {
    workers.set(data.thread, data);
    if (data.job) received.push(data.at);
  };
  const pool = new WorkerPool({ size, workerUrl: new URL(import.meta.url) });
  return {
    pool,
    workers,
    jobs: () => received.length,
    jobsSince: (at) => received.filter((t) => t > at).length,
    now: () => performance.timeOrigin + performance.now(),
    end: (thread) => channel.postMessage({ end: thread }),
    async until(condition, what = "the condition", ms = 10_000) {
      const started = Date.now();
      while (!condition()) {
        if (Date.now() - started > ms) throw new Error(`waited ${ms} ms for ${what}`);
        await new Promise((r) => setTimeout(r, 1));
      }
    },
    async close() {
      await pool.terminate();
      channel.close();
    },
  };
}
