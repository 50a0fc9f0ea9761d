// The messages between the main thread and a pool worker (js/pool/pool.ts <-> js/pool/worker/decode-worker.ts),
// written once for both sides.
import type { EncodeModule, ModuleName } from "../modules.js";
import type { ShardLayout } from "../kernels/encode.js";
import type { Range, Remote } from "../stores/store.js";
import type { StageSpec } from "../kernels/place.js";

/** The wasm modules a worker may start (the module table's). */
export type ModuleKind = ModuleName;

/** Starts one module in a worker, from the module the main thread compiled. */
export interface StartMessage {
  op: "start";
  kind: ModuleKind;
  module: WebAssembly.Module;
}

/** One decode: one stored chunk, the box of it to read, and where the box's values go. */
export interface Job {
  /** The reader's module and the array it reads (`key`; `text`: its metadata text). */
  kind: "core" | "packing";
  key: number;
  text: string;
  /** For a rectilinear grid: the shape of the chunk (JSON), which the reader is made for. */
  chunkShape?: string;
  /** The steps the worker runs on the stored bytes before the reader takes them (see js/kernels/place.ts). */
  stages: StageSpec[];
  /** Stored bytes (a copy goes to the worker, unless `owned`); or, with `remote`, none: the worker fetches them. */
  stored?: Uint8Array;
  /** Where the worker fetches the stored bytes (see `GetOptions.workerFetch`). */
  remote?: Remote;
  /** Whether `stored` is the read's alone, so that its buffer may be handed over uncopied. */
  owned: boolean;
  region: Uint32Array;
  /** The output typed array's constructor name. */
  type: string;
  /** Where the box's values go. */
  output: Output;
  runLength: number;
  starts: Float64Array;
}

/**
 * Where a decoded box's values go: into the read's shared output (its buffer, and where in
 * it the output begins, in bytes); into the output a worker assembles for the read (see
 * `WorkerPool.assemble`), or, from any other worker, back in a buffer for it; or ("back")
 * back in a buffer, in the box's C order, for the main thread.
 */
export type Output =
  | { to: "shared"; buffer: SharedArrayBuffer; offset: number }
  | { to: "assembly"; read: number }
  | { to: "back" };

/** A job as posted: with the id its reply names. */
export interface JobMessage extends Job {
  op: "decode";
  job: number;
  /** A buffer a worker gave back, for the box's values when they go back (not into an output). */
  box?: ArrayBuffer;
  /** In a `DecodeRunMessage`: where this job's stored bytes lie within the run. */
  part?: Range;
}

/**
 * Several decodes whose stored bytes lie in one run of one object, given (`stored`) or fetched
 * by the worker once (`remote`): each job is answered (under its own id) from its part of it.
 * `job`: the id a "cancel" names to stop the fetch.
 */
export interface DecodeRunMessage {
  op: "decodeRun";
  job: number;
  /** The run's bytes, handed over; or where the worker fetches them. */
  stored?: Uint8Array;
  remote?: Remote;
  jobs: JobMessage[];
}

/**
 * The messages of a read whose output one worker assembles: "begin" makes its output (replying to `job`: whether it could),
 * "place" copies a box another worker decoded (or, with no buffer, writes the fill value to
 * a missing chunk's runs), "end" hands the output over (replying to `job`), "abort" drops it.
 */
export type AssemblyMessage =
  | { op: "begin"; read: number; type: string; length: number; fill: Uint8Array; job: number }
  | { op: "place"; read: number; buffer?: ArrayBuffer; runLength: number; starts: Float64Array }
  | { op: "abort"; read: number }
  | { op: "end"; read: number; job: number };

/** The bytes -> bytes codecs of a write (v3 metadata as JSON), the item size they receive, and the module that encodes them. */
export interface CompressorSpec {
  codecs: string;
  itemSize: number;
  module: EncodeModule;
}

/**
 * One chunk to encode for a write (see js/kernels/encode.ts): the values of the selection's box in it
 * and, where the box is not the whole chunk, where it lies and the chunk's old stored bytes.
 */
export interface EncodeJob {
  /** The array (`key`; `text`: its metadata text), read by the core module. */
  key: number;
  text: string;
  /** The chain's steps in wasm after the core's (decode order, as a read's). */
  stages: StageSpec[];
  /** The bytes -> bytes codecs, if any (v3 metadata as JSON; the item size they receive; the module that encodes them). */
  compressor?: CompressorSpec;
  /** The box's values (`count` of the typed array named `type`, C order, from the buffer's start); the buffer is handed over, and comes back for a later chunk's values. */
  values: ArrayBuffer;
  count: number;
  type: string;
  chunkShape: number[];
  /** A `transpose`'s order: the chunk's values are laid out in it before they are encoded. */
  order?: number[];
  /** For a rectilinear grid: the shape (JSON) of the reader that encodes this chunk (`chunkShape` is then its shape). */
  readerShape?: string;
  region?: Uint32Array;
  stored?: Uint8Array;
  fill: Uint8Array;
}

/** An encode as posted: with the id its answer names (its buffer: the chunk's stored bytes). */
export interface EncodeMessage extends EncodeJob {
  op: "encode";
  job: number;
}

/**
 * Several chunks of one row of chunks to encode (the same chunk in every dimension but the
 * last): the values of their boxes side by side (`slab`: `rows` rows of `width` values, C
 * order), each member's columns in it, and per member what `EncodeJob` says of one chunk.
 */
export interface EncodeRowJob extends Omit<EncodeJob, "values" | "count" | "region" | "stored"> {
  slab: ArrayBuffer;
  rows: number;
  width: number;
  members: { key: string; offset: number; count: number; region?: Uint32Array; stored?: Uint8Array }[];
}

/** A row encode as posted (its answer's buffers: each member's stored bytes, in order). */
export interface EncodeRowMessage extends EncodeRowJob {
  op: "encodeRow";
  job: number;
}

/** A shard to lay out from its inner chunks' stored bytes (each over a buffer of its own, handed over). */
export interface LayShardJob {
  parts: (Uint8Array | undefined)[];
  shard: ShardLayout;
  /** The index's bytes -> bytes codecs (v3 metadata as JSON), if any. */
  indexCodecs?: string;
  /** The module that encodes them. */
  indexModule?: EncodeModule;
}

/** A shard layout as posted (its answer's buffer: the shard's bytes). */
export interface LayShardMessage extends LayShardJob {
  op: "layShard";
  job: number;
}

/** Stops a job's fetch (its read was aborted): the job answers with the abort. */
export interface CancelMessage {
  op: "cancel";
  job: number;
}

export type ToWorker = StartMessage | CancelMessage | JobMessage | DecodeRunMessage | EncodeMessage | EncodeRowMessage | LayShardMessage | AssemblyMessage;

/** An error as it crosses back. */
export interface ErrorReply {
  message: string;
  name: string;
  code?: string;
  /** The codec that failed, where one did (`CodecError.codec`). */
  codec?: string;
  /** STORE_CHANGED: the validator the changed object answered with. */
  validator?: string;
  /** STORE_CHANGED: the object was gone (404 for a range its index named). */
  gone?: boolean;
}

/**
 * What a worker sends: that it has started ("ready"); buffers given back for later jobs
 * ("spare": a box it has placed into the output it assembles); or its answer to a job, a
 * "begin" or an "end" ("answer": a buffer of values, or an error), with the buffers it gives
 * back (the stored bytes', a box buffer it did not use); `missing`: the chunk a worker fetched
 * is missing (404), and nothing was placed.
 */
export type Reply =
  | { op: "ready" }
  | { op: "spare"; spare: ArrayBuffer[] }
  | { op: "answer"; job: number; buffer?: ArrayBuffer; buffers?: ArrayBuffer[]; spare?: ArrayBuffer[]; error?: ErrorReply; missing?: boolean };
