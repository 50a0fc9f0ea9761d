// A pool of workers that decode chunks for `get` and `getDecoded` and encode them for `set`
// and `writePacked`: Web Workers in browsers, worker threads in Node. Each worker starts the
// package's wasm modules once, from the modules the main thread compiled, and then decodes
// one stored chunk, or encodes one chunk's values, per job. With a
// SharedArrayBuffer-backed output, workers write into it directly. Without one, one worker
// of the pool assembles the read's output: its own jobs write into it, other workers'
// boxes are passed on to it (transferred, not copied, on the main thread), and it hands the
// whole output over at the end, so the main thread copies no values.
import { codedError } from "../common/errors.js";
import { onAbort } from "../common/abort.js";
import { builtin, isNode } from "../common/node.js";
import { serves } from "../common/spare.js";
import { fillsItsBuffer, typedArrayNamed } from "../kernels/place.js";
import type { Range, Remote } from "../stores/store.js";
import {
  type EncodeJob, type EncodeRowJob, type Job, type JobMessage, type LayShardJob, type ModuleKind, type Reply, type ToWorker,
} from "./protocol.js";

export type { Job } from "./protocol.js";

/** A worker, as a browser or Node gives it. */
interface Port {
  post(message: ToWorker, transfer?: Transferable[]): void;
  terminate(): Promise<void> | void;
  /** Node only: whether the worker keeps the process alive. */
  hold(yes: boolean): void;
}

interface Pending {
  /** The answer's buffer(s); null: the chunk the worker fetched is missing. */
  resolve(buffer: ArrayBuffer | ArrayBuffer[] | undefined | null): void;
  reject(error: Error): void;
}

/**
 * A job waiting for a worker: `post` sends it to the worker chosen, under the id its answer
 * will name; `off` stops listening for its read's (or write's) abort.
 */
interface Waiting extends Pending {
  post(slot: Slot, id: number): void;
  modules: Partial<Record<ModuleKind, WebAssembly.Module>>;
  /** The most jobs a worker may hold for this one to go to it. */
  limit: number;
  off?: () => void;
}

interface Slot {
  port: Port;
  pending: Map<number, Pending>;
  started: Set<ModuleKind>;
  /** Whether the worker has said it started (until then, losing it is a failed start). */
  ready: boolean;
  /** Set when the worker was dropped: the error its jobs got. */
  lost?: Error;
}

/** A read whose output one worker assembles (see `WorkerPool.assemble`). */
export interface Assembly {
  read: number;
  /** Passes a box another worker decoded (the runs' values, one after another) on. */
  place(values: ArrayBuffer, runLength: number, starts: Float64Array): void;
  /** Has the fill value written to runs (a missing chunk's). */
  fill(runLength: number, starts: Float64Array): void;
  /** The output's buffer, once every box before this call has been placed. */
  finish(): Promise<ArrayBuffer>;
  /** Drops the output (after a failed job). */
  abort(): void;
}

type NodeWorker = {
  postMessage(m: unknown, t?: unknown[]): void;
  terminate(): Promise<number>;
  on(event: string, f: (v: never) => void): void;
  ref(): void;
  unref(): void;
};
/** Jobs a worker holds at once: one it works on and one ready for when it finishes. */
const IN_FLIGHT = 2;
/**
 * Jobs a worker holds at once when it fetches their bytes itself (`GetOptions.workerFetch`):
 * enough fetches in flight to cover a request's round trip while it decodes the bytes in.
 */
const FETCH_IN_FLIGHT = 12;
/** The most bytes of given-back buffers an idle pool keeps for its next read. */
const SPARE_BYTES = 16 << 20;

const terminatedError = () => codedError("POOL_TERMINATED", "the worker pool was terminated");

/** The first wait before a pool whose workers could not start tries again; it doubles up to the cap. */
const RETRY_MS = 1000;
const RETRY_CAP_MS = 60_000;

/** What most often keeps a pool's workers from starting, where they start from a blob: URL. */
const START_HINT =
  "A page whose Content-Security-Policy leaves blob: out of worker-src (or child-src, or " +
  "script-src) cannot start workers from the package's blob: URL: allow blob: in worker-src, or " +
  "serve the package's dist/worker.js and pass its URL: new WorkerPool({ workerUrl })";

/** `new WorkerPool(options)`. */
export interface PoolOptions {
  /** How many workers; by default the machine's parallelism, at most 8. */
  size?: number;
  /**
   * Where the workers' script is served from (the package's `dist/worker.js`, e.g. through a
   * bundler's `?url` import), for pages whose Content-Security-Policy forbids blob: workers.
   * By default the script ships inside the package and starts from a blob: URL (in Node, as
   * an eval worker).
   */
  workerUrl?: string | URL;
}

let source: Promise<string> | undefined;
function workerSource(): Promise<string> {
  source ??= import("../wasm/worker_source.js").then((m) => m.default);
  source.catch(() => (source = undefined));
  return source;
}

/** The number of workers a pool gets when none is asked for. */
async function defaultSize(): Promise<number> {
  let n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  if (isNode) n = (await builtin<{ availableParallelism(): number }>("os")).availableParallelism();
  return Math.max(1, Math.min(n ?? 4, 8));
}

/**
 * Workers that decode chunks off the main thread for `get` and `getDecoded`, and encode them
 * for `set` and `writePacked` (`{ pool }` in their options). One pool can serve many reads at once; `terminate()` ends
 * its workers. In Node an idle pool does not keep the process alive.
 */
export class WorkerPool {
  /** The number of workers (fixed when the pool starts them). */
  size: number;
  private slots: Promise<Slot[]> | undefined;
  /** The workers now running (what `slots` resolved to). */
  private live: Slot[] | undefined;
  private jobs = 0;
  private reads = 0;
  private ended = false;
  private waiting: Waiting[] = [];
  /**
   * Buffers the workers gave back, to copy later chunks into, the latest last: a full list
   * drops its oldest, so that buffers of a size no job asks for any more (a read's boxes, say,
   * when writes follow) do not take the places of those the next jobs need.
   */
  private spare: ArrayBuffer[] = [];

  /** Whether `terminate()` was called. */
  get terminated(): boolean {
    return this.ended;
  }
  private url: string | undefined;

  private workerUrl: string | undefined;
  /** The workers' start failures in a row, when the next start may be tried, and the error. */
  private failures = 0;
  private retryAt = 0;
  private startError: Error | undefined;

  /**
   * `size` (or `{ size, workerUrl }`): how many workers, by default the machine's parallelism,
   * at most 8; `workerUrl`, see `PoolOptions`.
   */
  constructor(options?: number | PoolOptions) {
    const { size, workerUrl } = typeof options === "object" && options !== null ? options : { size: options, workerUrl: undefined };
    if (size !== undefined && !(Number.isInteger(size) && size >= 1)) {
      throw codedError("INVALID_ARGUMENT", `a worker pool's size must be a positive integer, got ${size}`);
    }
    if (workerUrl !== undefined && typeof workerUrl !== "string" && !(workerUrl instanceof URL)) {
      throw codedError("INVALID_ARGUMENT", "a worker pool's workerUrl must be a string or a URL");
    }
    this.size = size ?? 0;
    this.workerUrl = workerUrl === undefined ? undefined : String(workerUrl);
  }

  /**
   * Ends every worker (resolving once they have stopped); reads still in flight reject with
   * `POOL_TERMINATED`.
   */
  async terminate(): Promise<void> {
    this.ended = true;
    const terminated = terminatedError();
    for (const w of this.waiting.splice(0)) w.reject(terminated);
    this.spare = [];
    const slots = await this.slots?.catch(() => []);
    const ends = (slots ?? []).map((slot) => this.drop(slot, terminated));
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = undefined;
    await Promise.all(ends);
  }

  /**
   * Runs a decode on the least busy worker (see `queue`); resolves to the box's values where
   * they come back, or, for a job whose worker fetches its bytes (`job.remote`), to null when
   * the chunk is missing (nothing placed). An abort stops such a job's fetch in the worker.
   */
  async run(job: Job, modules: Partial<Record<ModuleKind, WebAssembly.Module>>, signal?: AbortSignal): Promise<ArrayBuffer | undefined | null> {
    let stopCancel: (() => void) | undefined;
    const post = (slot: Slot, id: number) => {
      const stored = job.remote ? undefined : this.handOver(job);
      // Values that go back (no shared output) are written into a buffer given back earlier.
      const n = job.output.to === "shared" ? 0 : job.runLength * job.starts.length * (typedArrayNamed(job.type)?.BYTES_PER_ELEMENT ?? 0);
      const box = n ? this.takeSpare(n) : undefined;
      const transfer = [stored?.buffer, box].filter((b) => b !== undefined) as ArrayBuffer[];
      slot.port.post({ ...job, op: "decode", stored, job: id, box }, transfer);
      if (job.remote && signal) stopCancel = onAbort(signal, () => slot.port.post({ op: "cancel", job: id }));
    };
    try {
      return (await this.queue(post, modules, signal, job.remote ? FETCH_IN_FLIGHT : IN_FLIGHT)) as ArrayBuffer | undefined | null;
    } finally {
      stopCancel?.();
    }
  }

  /**
   * Runs the decodes of several chunks whose stored bytes lie in one run (a merged range of a
   * shard, or a whole shard) on the least busy worker: the run's bytes handed over (`stored`,
   * the read's own: transferred, or copied where they do not fill their buffer), or fetched
   * by the worker (`remote`) once; each job decodes its part of them (`parts[i]`, within the
   * run). Resolves, per job, as `run` does; an abort stops the run's fetch.
   */
  runParts(
    source: { remote: Remote } | { stored: Uint8Array },
    jobs: Job[],
    parts: Range[],
    modules: Partial<Record<ModuleKind, WebAssembly.Module>>,
    signal?: AbortSignal,
  ): Promise<ArrayBuffer | undefined | null>[] {
    const answers = jobs.map(() => {
      let settle!: Pending;
      const promise = new Promise<ArrayBuffer | undefined | null>((resolve, reject) => {
        settle = { resolve: resolve as Pending["resolve"], reject };
      });
      return { promise, settle };
    });
    let stopCancel: (() => void) | undefined;
    const post = (slot: Slot, id: number) => {
      // The first job answers under `id` (the queue's, which until now stood for them all:
      // a failure before a worker took them fails every one); the others under ids of their own.
      slot.pending.set(id, answers[0].settle);
      const ids = [id, ...answers.slice(1).map((a) => this.owe(slot, a.settle))];
      const boxes: ArrayBuffer[] = [];
      const messages = jobs.map((job, i): JobMessage => {
        const n = job.output.to === "shared" ? 0 : job.runLength * job.starts.length * (typedArrayNamed(job.type)?.BYTES_PER_ELEMENT ?? 0);
        const box = n ? this.takeSpare(n) : undefined;
        if (box) boxes.push(box);
        return { ...job, op: "decode", job: ids[i], box, part: parts[i] };
      });
      const stored = "stored" in source ? this.handOver({ stored: source.stored, owned: true }) : undefined;
      const run = stored ? { stored } : { remote: (source as { remote: Remote }).remote };
      slot.port.post({ op: "decodeRun", job: id, ...run, jobs: messages }, stored ? [...boxes, stored.buffer as ArrayBuffer] : boxes);
      if (signal && !stored) stopCancel = onAbort(signal, () => slot.port.post({ op: "cancel", job: id }));
    };
    const all: Pending = {
      resolve: answers[0].settle.resolve,
      reject: (e) => answers.forEach((a) => a.settle.reject(e)),
    };
    void this.queueWith(post, modules, all, signal, FETCH_IN_FLIGHT);
    void Promise.allSettled(answers.map((a) => a.promise)).then(() => stopCancel?.());
    return answers.map((a) => a.promise);
  }

  /**
   * Encodes one chunk of a write on the least busy worker (see js/kernels/encode.ts); resolves to its
   * stored bytes. The job's values buffer is handed over (it is the write's own); its old
   * stored bytes, which may be the store's, are copied.
   */
  async encode(job: EncodeJob, modules: Partial<Record<ModuleKind, WebAssembly.Module>>, signal?: AbortSignal): Promise<ArrayBuffer> {
    const post = (slot: Slot, id: number) => {
      // A copy (the store may hold the bytes; a Node Buffer's slice() would be a view of them).
      const stored = job.stored && new Uint8Array(job.stored);
      const transfer = stored ? [job.values, stored.buffer as ArrayBuffer] : [job.values];
      slot.port.post({ ...job, stored, op: "encode", job: id }, transfer);
    };
    return (await this.queue(post, modules, signal)) as ArrayBuffer;
  }

  /**
   * Encodes the chunks of one row of chunks on the least busy worker, from their values side
   * by side (one slab, handed over); resolves to each chunk's stored bytes, in order.
   */
  async encodeRow(job: EncodeRowJob, modules: Partial<Record<ModuleKind, WebAssembly.Module>>, signal?: AbortSignal): Promise<ArrayBuffer[]> {
    const post = (slot: Slot, id: number) => {
      // Old stored bytes are copied (the store may hold them; a Node Buffer's slice() is a view).
      const members = job.members.map((m) => (m.stored ? { ...m, stored: new Uint8Array(m.stored) } : m));
      const transfer = [job.slab, ...members.flatMap((m) => (m.stored ? [m.stored.buffer as ArrayBuffer] : []))];
      slot.port.post({ ...job, members, op: "encodeRow", job: id }, transfer);
    };
    return (await this.queue(post, modules, signal)) as ArrayBuffer[];
  }

  /** Lays a shard out on the least busy worker from its inner chunks' bytes (their buffers handed over); resolves to the shard's bytes. */
  async layShard(job: LayShardJob, modules: Partial<Record<ModuleKind, WebAssembly.Module>>, signal?: AbortSignal): Promise<ArrayBuffer> {
    const post = (slot: Slot, id: number) => {
      const transfer = job.parts.flatMap((p) => (p ? [p.buffer as ArrayBuffer] : []));
      slot.port.post({ ...job, op: "layShard", job: id }, transfer);
    };
    return (await this.queue(post, modules, signal)) as ArrayBuffer;
  }

  /**
   * A buffer a worker gave back, of at least `n` bytes (and at most twice that), for a write's
   * next chunk of values: memory written before costs several times less to write than new.
   */
  spareBuffer(n: number): ArrayBuffer | undefined {
    return this.takeSpare(n);
  }

  /**
   * Queues a job for the least busy worker; `modules` holds the compiled modules the job needs
   * (its reader's, and each step's), each sent to a worker once. Each worker has at most
   * IN_FLIGHT jobs at a time and the rest wait here, so that their bytes are copied for a
   * worker just before it needs them: a little at a time, in many short tasks.
   */
  private queue(
    post: Waiting["post"],
    modules: Partial<Record<ModuleKind, WebAssembly.Module>>,
    signal?: AbortSignal,
    limit = IN_FLIGHT,
  ): Promise<ArrayBuffer | ArrayBuffer[] | undefined | null> {
    return new Promise((resolve, reject) => void this.queueWith(post, modules, { resolve, reject }, signal, limit));
  }

  /** `queue`, answering to `answer` (which is rejected when no worker can be had). */
  private async queueWith(
    post: Waiting["post"],
    modules: Partial<Record<ModuleKind, WebAssembly.Module>>,
    answer: Pending,
    signal?: AbortSignal,
    limit = IN_FLIGHT,
  ): Promise<void> {
    let slots: Slot[];
    try {
      slots = await this.workers();
      signal?.throwIfAborted();
    } catch (e) {
      return answer.reject(e as Error);
    }
    const entry: Waiting = { post, modules, limit, ...answer };
    // An aborted read's jobs that no worker has yet are dropped (one already sent runs to
    // its end, and its answer is not used).
    if (signal) {
      const drop = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        answer.reject(signal.reason);
      };
      entry.off = onAbort(signal, drop);
    }
    this.waiting.push(entry);
    this.dispatch(slots);
  }

  /**
   * Starts a read whose output (`length` values of the typed array named `type`; `fill` one
   * value's bytes) one worker assembles, taking turns over the workers. Jobs with the
   * Assembly's `read` that land on that worker write straight into the output; the others
   * return their boxes, which `place` sends on (transferred). Messages to one worker arrive
   * in order, so `finish` (sent after the last place) gets the complete output.
   */
  async assemble(type: string, length: number, fill: Uint8Array): Promise<Assembly> {
    const slots = await this.workers();
    const slot = slots[this.reads % slots.length];
    const read = this.reads++;
    // The output is made first: one that cannot be allocated fails the read before any chunk.
    await new Promise<unknown>((resolve, reject) => {
      const id = this.owe(slot, { resolve, reject });
      slot.port.post({ op: "begin", read, type, length, fill, job: id });
    });
    const live = () => !this.ended && !slot.lost;
    // A box to copy in (with its values) or a missing chunk's runs to fill (without).
    const send = (runLength: number, starts: Float64Array, buffer?: ArrayBuffer) => {
      if (live()) slot.port.post({ op: "place", read, buffer, runLength, starts }, buffer ? [buffer] : []);
    };
    return {
      read,
      place: (buffer, runLength, starts) => send(runLength, starts, buffer),
      fill: (runLength, starts) => send(runLength, starts),
      abort: () => {
        if (live()) slot.port.post({ op: "abort", read });
      },
      finish: () =>
        new Promise<ArrayBuffer>((resolve, reject) => {
          if (this.ended) return reject(terminatedError());
          if (slot.lost) return reject(slot.lost);
          const id = this.owe(slot, { resolve: resolve as (b: ArrayBuffer | undefined) => void, reject });
          slot.port.post({ op: "end", read, job: id });
        }),
    };
  }

  /**
   * Four times what the workers hold at once: a read keeps at least this many chunks between
   * starting their fetch and the worker's answer by default (see `GetOptions.concurrency`), so
   * that every worker has chunks waiting while fetches go on.
   */
  async ahead(): Promise<number> {
    return 4 * IN_FLIGHT * (await this.workers()).length;
  }

  /**
   * The workers, started on first use; refused once the pool is terminated, and, after workers
   * that could not start, until the wait before the next try is over.
   */
  private async workers(): Promise<Slot[]> {
    if (this.ended) throw terminatedError();
    if (!this.slots && this.startError && Date.now() < this.retryAt) {
      const wait = Math.ceil((this.retryAt - Date.now()) / 1000);
      throw codedError("WORKER_START_FAILED", `${this.startError.message} (the pool tries again in ${wait} s)`, this.startError);
    }
    this.slots ??= this.start();
    return this.slots;
  }

  /**
   * Workers that stopped before they said they started: every read waiting for this pool's
   * workers fails with WORKER_START_FAILED, the workers end, and no new ones start before a
   * wait (1 s, doubling with each failure in a row, at most a minute); a read after it tries
   * again. No worker is restarted in a loop.
   */
  private startFailed(slots: Slot[], why: string) {
    if (this.live !== slots) return;
    this.live = undefined;
    this.slots = undefined;
    const error = codedError("WORKER_START_FAILED", `the pool's workers could not start (${why}). ${START_HINT}`);
    this.startError = error;
    this.retryAt = Date.now() + Math.min(RETRY_CAP_MS, RETRY_MS * 2 ** this.failures++);
    for (const w of this.waiting.splice(0)) w.reject(error);
    for (const slot of slots) void this.drop(slot, error);
  }

  /** Registers an answer a worker owes (holding Node's process meanwhile); its job id. */
  private owe(slot: Slot, pending: Pending): number {
    const id = this.jobs++;
    slot.pending.set(id, pending);
    if (slot.pending.size === 1) slot.port.hold(true);
    return id;
  }

  private dispatch(slots: Slot[]) {
    while (this.waiting.length && !this.ended) {
      let slot: Slot | undefined;
      const limit = this.waiting[0].limit;
      for (const s of slots) if (s.pending.size < limit && (!slot || s.pending.size < slot.pending.size)) slot = s;
      if (!slot) return;
      const { post, modules, resolve, reject, off } = this.waiting.shift()!;
      off?.();
      for (const [kind, module] of Object.entries(modules) as [ModuleKind, WebAssembly.Module][]) {
        if (slot.started.has(kind)) continue;
        slot.port.post({ op: "start", kind, module });
        slot.started.add(kind);
      }
      const id = this.owe(slot, { resolve, reject });
      try {
        post(slot, id);
      } catch (e) {
        // A job that cannot be sent (a buffer already detached, say) fails alone, at once,
        // rather than wait for an answer that will not come; the others go on.
        slot.pending.delete(id);
        if (slot.pending.size === 0) slot.port.hold(false);
        reject(codedError("INTERNAL", `a job could not be sent to a worker: ${e instanceof Error ? e.message : String(e)}`, e));
      }
    }
  }

  /**
   * The stored bytes to transfer to a worker: the job's own when they are the read's alone
   * and fill their buffer; otherwise (they may belong to the store) a copy (one memcpy; a
   * structured clone of the same bytes costs several times as much in Chromium), into a
   * buffer a worker gave back when there is one large enough (fresh memory costs about six
   * times as much to write the first time, in Chromium here).
   */
  private handOver(job: Pick<Job, "stored" | "owned">): Uint8Array {
    const src = job.stored!;
    const n = src.byteLength;
    // (Never an empty one: a buffer already detached reads as empty, and a message that
    // transfers it is lost in Node, with no error.)
    if (job.owned && n > 0 && fillsItsBuffer(src)) {
      return src;
    }
    const spare = this.takeSpare(n);
    // (A copy by the constructor: a Node Buffer's slice() is a view of the store's bytes.)
    if (!spare) return new Uint8Array(src);
    const stored = new Uint8Array(spare, 0, n);
    stored.set(src);
    return stored;
  }

  /**
   * A given-back buffer of at least `n` bytes and at most twice that (a far larger one is
   * kept for a job that needs it), taken from the spares; undefined when there is none.
   */
  private takeSpare(n: number): ArrayBuffer | undefined {
    const at = this.spare.findIndex((b) => serves(b, n));
    return at < 0 ? undefined : this.spare.splice(at, 1)[0];
  }

  private async start(): Promise<Slot[]> {
    if (!this.size) this.size = await defaultSize();
    // (With a workerUrl, the script inside the package is never loaded.)
    const script = this.workerUrl ? "" : await workerSource();
    const NodeWorker = isNode
      ? (await builtin<{ Worker: new (code: string | URL, o: object) => NodeWorker }>("worker_threads")).Worker
      : undefined;
    const slots: Slot[] = [];
    this.live = slots;
    try {
      for (let i = 0; i < this.size; i++) slots.push(this.spawn(script, NodeWorker, slots, i));
    } catch (e) {
      // A worker refused at once (e.g. a SecurityError).
      this.startFailed(slots, e instanceof Error ? `${e.name}: ${e.message}` : String(e));
      throw this.startError;
    }
    return slots;
  }

  private spawn(
    script: string,
    NodeWorker: (new (code: string | URL, o: object) => NodeWorker) | undefined,
    slots: Slot[],
    index: number,
  ): Slot {
    const slot: Slot = { port: undefined as unknown as Port, pending: new Map(), started: new Set(), ready: false };
    const settle = (message: Reply) => {
      if (message.op === "ready") {
        slot.ready = true;
        this.failures = 0;
        this.startError = undefined;
        return;
      }
      for (const b of message.spare ?? []) {
        this.spare.push(b);
        if (this.spare.length > 4 * IN_FLIGHT * slots.length) this.spare.shift();
      }
      if (message.op === "spare") return;
      const pending = slot.pending.get(message.job);
      if (!pending) return;
      slot.pending.delete(message.job);
      if (slot.pending.size === 0) slot.port.hold(false);
      if (message.missing) {
        pending.resolve(null);
      } else if (!message.error) {
        pending.resolve(message.buffers ?? message.buffer);
      } else {
        const { message: said, name, ...fields } = message.error;
        const e = Object.assign(new Error(said), fields);
        e.name = name;
        pending.reject(e);
      }
      this.dispatch(slots);
      // An idle pool keeps no more than SPARE_BYTES of given-back buffers.
      if (!this.waiting.length && slots.every((s) => s.pending.size === 0)) {
        let kept = 0;
        // (The latest first.)
        this.spare = this.spare.reverse().filter((b) => (kept += b.byteLength) <= SPARE_BYTES).reverse();
      }
    };
    // A worker that dies takes its jobs with it; a new one takes its place. One that dies
    // before it has started is a failed start (see `startFailed`).
    const lost = (why: string) => {
      if (this.ended || slots[index] !== slot) return;
      if (!slot.ready) return this.startFailed(slots, why);
      slots[index] = this.spawn(script, NodeWorker, slots, index);
      this.drop(slot, codedError("WORKER_LOST", `a decoding worker stopped: ${why}`));
      this.dispatch(slots);
    };
    if (NodeWorker) {
      const worker = this.workerUrl ? new NodeWorker(new URL(this.workerUrl), {}) : new NodeWorker(script, { eval: true });
      // Node keeps a worker's ports referenced if it is ref()'d after it exits: never do.
      let running = true;
      const ended = new Promise<void>((resolve) => worker.on("exit", (() => ((running = false), resolve())) as (v: never) => void));
      worker.on("message", settle as (v: never) => void);
      worker.on("error", ((e: Error) => lost(e.message)) as (v: never) => void);
      worker.on("exit", ((code: number) => lost(`exit code ${code}`)) as (v: never) => void);
      // After the listeners: adding a "message" listener refs the worker again.
      worker.unref();
      slot.port = {
        post: (m, t) => worker.postMessage(m, t),
        // Held while it stops, so that awaiting the end keeps Node running until then.
        terminate: () => {
          if (running) {
            worker.ref();
            void worker.terminate();
          }
          return ended;
        },
        hold: (yes) => running && (yes ? worker.ref() : worker.unref()),
      };
    } else {
      if (!this.workerUrl) this.url ??= URL.createObjectURL(new Blob([script], { type: "text/javascript" }));
      const worker = new Worker(this.workerUrl ?? this.url!);
      worker.onmessage = (event) => settle(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        lost(event.message || "error");
      };
      slot.port = { post: (m, t) => worker.postMessage(m, t ?? []), terminate: () => worker.terminate(), hold: () => {} };
    }
    return slot;
  }

  /** Ends a worker and rejects its jobs; resolves when it has stopped. */
  private drop(slot: Slot, error: Error): Promise<void> | void {
    slot.lost = error;
    for (const pending of slot.pending.values()) pending.reject(error);
    slot.pending.clear();
    return slot.port.terminate();
  }
}

let shared: WorkerPool | undefined;

/**
 * The pool `{ pool: true }` uses: created on first use with the default size. After its
 * `terminate()`, the next call starts a new one (the terminated pool stays terminated).
 */
export function defaultPool(): WorkerPool {
  if (!shared || shared.terminated) shared = new WorkerPool();
  return shared;
}
