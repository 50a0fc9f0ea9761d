// A pool worker (see js/pool/pool.ts): a Web Worker in browsers, a worker thread in Node. It starts
// the package's wasm modules from the modules the main thread compiled, then encodes one
// chunk per write job with the same code as the one-thread write (js/kernels/encode.ts), or decodes
// one stored chunk per read job with the same code as the one-thread read (js/kernels/place.ts): bytes ->
// bytes codecs undone by the compress module, the box decoded by the array's reader, its
// values written to a shared output, to an output this worker assembles, or to a buffer
// sent back. scripts/build.mjs bundles this file (and what it imports) into one script that
// the pool starts from a blob: URL or as a Node eval worker.
import { initSync as initCore, ArrayReader } from "../../wasm/zarr_wasm_codecs.js";
import { initSync as initPacking, DecodedReader } from "../../wasm/zarr_wasm_codecs_packing.js";
import { initSync as initCompress, Decompressor } from "../../wasm/zarr_wasm_codecs_compress.js";
import { initSync as initZstd, Decompressor as ZstdDecompressor } from "../../wasm/zarr_wasm_codecs_zstd.js";
import { initSync as initEncode, Compressor } from "../../wasm/zarr_wasm_codecs_encode.js";
import { initSync as initArchive, Decompressor as ArchiveDecompressor } from "../../wasm/zarr_wasm_codecs_archive.js";
import { initSync as initArchiveEncode, Compressor as ArchiveCompressor } from "../../wasm/zarr_wasm_codecs_archive_encode.js";
import { initSync as initPcodec, PcodecCodec } from "../../wasm/zarr_wasm_codecs_pcodec.js";
import { initSync as initZfp, ZfpCodec } from "../../wasm/zarr_wasm_codecs_zfp.js";
import { initSync as initGrib, GribCodec } from "../../wasm/zarr_wasm_codecs_grib.js";
import type { EncodeModule, ModuleName, StepModule } from "../../modules.js";
import { builtin, isNode } from "../../common/node.js";
import { serves } from "../../common/spare.js";
import {
  boxInto, boxRunsOf, type Decompressor as DecompressorLike, fillRuns, fillsItsBuffer, isBytesStage, placeChunk, type Runs, stageOf,
  type TileReader, type TypedArray, typedArrayNamed, unpackAll,
} from "../../kernels/place.js";
import { type AssemblyMessage, type EncodeMessage, type EncodeRowMessage, type ErrorReply, type LayShardMessage, type JobMessage, type DecodeRunMessage, type ModuleKind, type Reply, type ToWorker } from "../protocol.js";
import { type ChainSteps, type ChunkCoder, encodeChunk, layShard } from "../../kernels/encode.js";
import { fetchStored } from "../../stores/remote.js";

interface Port {
  postMessage(message: Reply, transfer?: Transferable[]): void;
}
let port: Port;

/**
 * What the worker takes of each module of the table (modules.ts): its start and, for a step
 * module, its class. Imported statically and by name, so that the bundled script keeps only
 * these; the types hold this list to the table's.
 */
const INIT = { core: initCore, packing: initPacking, compress: initCompress, zstd: initZstd, encode: initEncode, archive: initArchive, archive_encode: initArchiveEncode, pcodec: initPcodec, grib: initGrib, zfp: initZfp } satisfies Record<
  ModuleName,
  unknown
>;
const STEPS = { compress: Decompressor, zstd: ZstdDecompressor, archive: ArchiveDecompressor, pcodec: PcodecCodec, grib: GribCodec, zfp: ZfpCodec } satisfies Record<StepModule, unknown>;
/** The modules whose Compressor encodes a write's bytes -> bytes codecs. */
const ENCODERS = { encode: Compressor, archive_encode: ArchiveCompressor } satisfies Record<EncodeModule, unknown>;

/** Per module: its memory, once the main thread has sent the module. */
const memories: Partial<Record<ModuleKind, WebAssembly.Memory>> = {};

/**
 * Readers and decompressors by array key, most recently used last; a few are kept. A viewer
 * reads a handful of arrays at once (variables, time steps, each with a reader and up to
 * three steps); 16 keeps them all while bounding what an app reading many arrays holds:
 * each keeps its last chunk (up to its chunk size) in its module's memory until it is freed.
 */
const KEEP = 16;
const kept = new Map<string, { free(): void }>();

function keep<T extends { free(): void }>(id: string, make: () => T): T {
  let found = kept.get(id) as T | undefined;
  if (found) kept.delete(id);
  else found = make();
  kept.set(id, found);
  while (kept.size > KEEP) {
    const [oldest, r] = kept.entries().next().value!;
    kept.delete(oldest);
    r.free();
  }
  return found;
}

function readerFor(job: { kind: "core" | "packing"; key: number; text: string; chunkShape?: string }): TileReader {
  // (A rectilinear grid's chunks of each shape have a reader of their own.)
  return keep(`${job.kind}:${job.key}${job.chunkShape ? `:${job.chunkShape}` : ""}`, () => {
    const r: TileReader = job.kind === "core" ? new ArrayReader(job.text, job.chunkShape) : new DecodedReader(job.text, job.chunkShape);
    if (r.fallback !== undefined) {
      r.free();
      throw Object.assign(new Error(r.fallback), { code: "INVALID_METADATA" });
    }
    return r;
  });
}

/** The job's steps before its reader (see js/kernels/place.ts), each with its module's memory. */
function stagesFor(job: { kind: "core" | "packing"; key: number; stages: JobMessage["stages"] }): { decoder: DecompressorLike; memory: WebAssembly.Memory }[] {
  return job.stages.map((spec, i) => ({
    decoder: keep(`stage${i}:${job.kind}:${job.key}`, () => stageOf(spec, STEPS[spec.kind])),
    memory: memories[spec.kind]!,
  }));
}

/** Outputs this worker assembles, by read (reads with no shared output). */
const outputs = new Map<number, { out: TypedArray; fill: Uint8Array }>();

/**
 * Decodes the box of one stored chunk and writes its values to the shared output or to an
 * output this worker assembles, or into a new buffer in the box's C order, which is returned.
 */
function decode(job: JobMessage, bytes: Uint8Array): ArrayBuffer | undefined {
  const Out = typedArrayNamed(job.type)!;
  const r = readerFor(job);
  const stored = unpackAll(stagesFor(job), bytes);
  const output = job.output;
  const shared = output.to === "shared" ? new Out(output.buffer, output.offset) : output.to === "assembly" ? outputs.get(output.read)?.out : undefined;
  if (shared) {
    placeChunk(r, memories[job.kind]!, stored, job.region, Out, { out: shared, runLength: job.runLength, starts: job.starts });
    return undefined;
  }
  // Into the buffer the main thread sent, when it is large enough: memory written before
  // costs several times less to write than new memory.
  const n = job.runLength * job.starts.length;
  const box = job.box && job.box.byteLength >= n * Out.BYTES_PER_ELEMENT ? new Out(job.box, 0, n) : new Out(n);
  placeChunk(r, memories[job.kind]!, stored, job.region, Out, boxRunsOf(box, job.runLength));
  return box.buffer as ArrayBuffer;
}

function assemble(message: AssemblyMessage): void {
  const entry = outputs.get(message.read);
  switch (message.op) {
    case "begin":
      try {
        outputs.set(message.read, { out: new (typedArrayNamed(message.type)!)(message.length), fill: message.fill });
        port.postMessage({ op: "answer", job: message.job });
      } catch (e) {
        const error = {
          message: `the output would hold ${message.length} values, more than can be allocated here: select less`,
          name: "Error",
          code: e instanceof RangeError ? "TOO_LARGE" : undefined,
        };
        port.postMessage({ op: "answer", job: message.job, error });
      }
      return;
    case "place": {
      if (!entry) return;
      const to: Runs = { out: entry.out, runLength: message.runLength, starts: message.starts };
      if (!message.buffer) return fillRuns(entry.fill, to);
      boxInto(new (entry.out.constructor as typeof Uint8Array)(message.buffer, 0, message.starts.length * message.runLength), to);
      // The box's buffer goes back, for a later box.
      port.postMessage({ op: "spare", spare: [message.buffer] }, [message.buffer]);
      return;
    }
    case "abort":
      outputs.delete(message.read);
      return;
    case "end": {
      outputs.delete(message.read);
      const buffer = entry?.out.buffer as ArrayBuffer | undefined;
      const error = buffer ? undefined : { message: "the read's output is gone", name: "Error", code: "WORKER_LOST" };
      port.postMessage({ op: "answer", job: message.job, buffer, error }, buffer ? [buffer] : []);
    }
  }
}

/** Encodes one chunk of a write (js/kernels/encode.ts); its stored bytes, in a buffer of their own. */
/** The write steps of a job's array: its coder, and its chain's steps (js/kernels/encode.ts). */
function writerFor(job: EncodeMessage | EncodeRowMessage): { coder: ChunkCoder; steps: ChainSteps } {
  const at = { kind: "core" as const, key: job.key, text: job.text, stages: job.stages, chunkShape: job.readerShape };
  const coder = readerFor(at) as unknown as ChunkCoder;
  const decode = stagesFor(at);
  const encoders: ChainSteps["encode"][number][] = [];
  const serializer = decode.find((_, i) => !isBytesStage(job.stages[i]))?.decoder as { encode?(raw: Uint8Array): Uint8Array } | undefined;
  if (serializer) encoders.push({ encode: (raw) => serializer.encode!(raw) });
  const spec = job.compressor;
  if (spec) encoders.push(keep(`encode:core:${job.key}`, () => new ENCODERS[spec.module](spec.codecs, spec.itemSize)));
  return { coder, steps: { decode, encode: encoders } };
}

/** Stored bytes in a buffer of their own (to hand over). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  return (fillsItsBuffer(bytes) ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
}

/** Encodes one chunk of a write (js/kernels/encode.ts); its stored bytes, in a buffer of their own. */
function encode(job: EncodeMessage): ArrayBuffer {
  const { coder, steps } = writerFor(job);
  const values = new (typedArrayNamed(job.type)!)(job.values, 0, job.count);
  const input = { values, region: job.region, stored: job.stored, fill: job.fill };
  return ownBuffer(encodeChunk(coder, steps, job.chunkShape, input, job.order));
}

/**
 * The buffer a row's member's values are taken into, one for all the members of every row
 * (the encoders copy the values into their module's memory): memory written before costs
 * several times less to write than new, and leaves nothing to collect.
 */
let memberSpare: ArrayBuffer | undefined;
function memberBuffer(n: number): ArrayBuffer {
  const found = memberSpare && serves(memberSpare, n) ? memberSpare : new ArrayBuffer(n);
  memberSpare = undefined;
  return found;
}

/**
 * Encodes the chunks of a row: each member's values taken from the slab (its columns of each
 * row), then encoded as one chunk is. An error names the member's chunk.
 */
function encodeRow(job: EncodeRowMessage): ArrayBuffer[] {
  const { coder, steps } = writerFor(job);
  const Ctor = typedArrayNamed(job.type)!;
  const slab = new Ctor(job.slab, 0, job.rows * job.width);
  return job.members.map((m) => {
    let values = slab;
    if (m.count !== job.width) {
      values = new Ctor(memberBuffer(job.rows * m.count * Ctor.BYTES_PER_ELEMENT), 0, job.rows * m.count);
      for (let r = 0; r < job.rows; r++) {
        const from = r * job.width + m.offset;
        values.set(slab.subarray(from, from + m.count) as never, r * m.count);
      }
    }
    try {
      const bytes = encodeChunk(coder, steps, job.chunkShape, { values, region: m.region, stored: m.stored, fill: job.fill }, job.order);
      // The member's buffer serves the next member, unless the stored bytes are in it.
      if (values !== slab && bytes.buffer !== values.buffer) memberSpare = values.buffer as ArrayBuffer;
      return ownBuffer(bytes);
    } catch (e) {
      if (e instanceof Error && (e as { code?: string }).code) e.message = `chunk ${m.key}: ${e.message}`;
      throw e;
    }
  });
}

/** A shard laid out (js/kernels/encode.ts), its index through the encode module's codecs. */
function shardOf(job: LayShardMessage): Uint8Array {
  const codecs = job.indexCodecs;
  // The index holds uint64 values.
  const index = codecs ? keep(`index:${codecs}`, () => new ENCODERS[job.indexModule ?? "encode"](codecs, 8)) : undefined;
  return layShard(job.parts, job.shard, index && ((raw) => index.encode(raw)));
}

/** The fetches of jobs whose bytes this worker fetches (see `GetOptions.workerFetch`), by job: to stop on a "cancel". */
const fetching = new Map<number, AbortController>();

/** Fetches `remote` for the job `job`, which a "cancel" naming it stops. */
async function fetchFor(job: number, remote: NonNullable<JobMessage["remote"]>, onBytes?: (buffer: Uint8Array, filled: number) => void): Promise<Uint8Array | undefined> {
  const controller = new AbortController();
  fetching.set(job, controller);
  try {
    return await fetchStored(remote, controller.signal, onBytes);
  } finally {
    fetching.delete(job);
  }
}

/** A decode whose stored bytes this worker fetches first; it answers `missing` for a missing chunk. */
async function fetchAndDecode(message: JobMessage): Promise<void> {
  const spare = message.box ? [message.box] : [];
  let stored: Uint8Array | undefined;
  try {
    stored = await fetchFor(message.job, message.remote!);
  } catch (e) {
    port.postMessage({ op: "answer", job: message.job, error: errorOf(e), spare }, spare);
    return;
  }
  if (!stored) port.postMessage({ op: "answer", job: message.job, missing: true, spare }, spare);
  else decodeAndAnswer(message, stored, []);
}

/**
 * Several decodes from one run (see `DecodeRunMessage`): the run given or fetched once, each
 * job answered from its part (a fetched run's as its part arrives); a failed fetch answers every
 * job not yet answered with its error.
 */
async function decodeRun(message: DecodeRunMessage): Promise<void> {
  let stored = message.stored;
  let failed: unknown;
  // (A fetched run's jobs decode as their parts arrive, in the order their parts end.)
  const answered = new Set<JobMessage>();
  if (message.remote) {
    const jobs = [...message.jobs].sort((x, y) => x.part!.offset + x.part!.length - (y.part!.offset + y.part!.length));
    let next = 0;
    try {
      stored = await fetchFor(message.job, message.remote, (buffer, filled) => {
        for (; next < jobs.length && jobs[next].part!.offset + jobs[next].part!.length <= filled; next++) {
          const { offset, length } = jobs[next].part!;
          answered.add(jobs[next]);
          decodeAndAnswer(jobs[next], buffer.subarray(offset, offset + length), []);
        }
      });
    } catch (e) {
      failed = e;
    }
  }
  for (const job of message.jobs) {
    if (answered.has(job)) continue;
    const spare = job.box ? [job.box] : [];
    if (!stored) {
      const error = errorOf(failed ?? Object.assign(new Error(`the store answered nothing for ${message.remote?.url}`), { code: "STORE_FAILED" }));
      port.postMessage({ op: "answer", job: job.job, error, spare }, spare);
      continue;
    }
    const { offset, length } = job.part!;
    decodeAndAnswer(job, stored.subarray(offset, offset + length), []);
  }
}

/**
 * Decodes a job's box from `stored` and answers, giving back `back` (buffers the job brought,
 * for later jobs) and the box buffer the main thread sent, unless the values went back in it.
 */
function decodeAndAnswer(message: JobMessage, stored: Uint8Array, back: ArrayBuffer[]): void {
  try {
    const buffer = decode(message, stored);
    const spare = message.box && buffer !== message.box ? [...back, message.box] : back;
    port.postMessage({ op: "answer", job: message.job, buffer, spare }, buffer ? [buffer, ...spare] : spare);
  } catch (e) {
    const spare = message.box ? [...back, message.box] : back;
    port.postMessage({ op: "answer", job: message.job, error: errorOf(e), spare }, spare);
  }
}

function errorOf(e: unknown): ErrorReply {
  if (e instanceof Error) {
    const { code, codec, validator, gone } = e as Omit<ErrorReply, "message" | "name">;
    const fields = Object.entries({ codec, validator, gone }).filter(([, v]) => v !== undefined);
    return { message: e.message, name: e.name, code, ...Object.fromEntries(fields) };
  }
  return { message: String(e), name: "Error" };
}

function handle(message: ToWorker): void {
  if (message.op === "start") {
    memories[message.kind] = INIT[message.kind]({ module: message.module }).memory;
    return;
  }
  if (message.op === "encode") {
    // The values' buffer goes back, for a later chunk's values (unless the stored bytes are in it).
    try {
      const buffer = encode(message);
      const spare = buffer === message.values ? [] : [message.values];
      port.postMessage({ op: "answer", job: message.job, buffer, spare }, [buffer, ...spare]);
    } catch (e) {
      port.postMessage({ op: "answer", job: message.job, error: errorOf(e), spare: [message.values] }, [message.values]);
    }
    return;
  }
  if (message.op === "layShard") {
    try {
      const buffer = ownBuffer(shardOf(message));
      port.postMessage({ op: "answer", job: message.job, buffer }, [buffer]);
    } catch (e) {
      port.postMessage({ op: "answer", job: message.job, error: errorOf(e) });
    }
    return;
  }
  if (message.op === "encodeRow") {
    // The slab goes back, for a later row's values (unless a member's stored bytes are in it).
    try {
      const buffers = encodeRow(message);
      const spare = buffers.includes(message.slab) ? [] : [message.slab];
      port.postMessage({ op: "answer", job: message.job, buffers, spare }, [...buffers, ...spare]);
    } catch (e) {
      port.postMessage({ op: "answer", job: message.job, error: errorOf(e), spare: [message.slab] }, [message.slab]);
    }
    return;
  }
  if (message.op === "cancel") return fetching.get(message.job)?.abort();
  if (message.op === "decodeRun") return void decodeRun(message);
  if (message.op !== "decode") return assemble(message);
  if (message.remote) return void fetchAndDecode(message);
  // The stored bytes' buffer goes back too, for the main thread to copy the next chunk into.
  decodeAndAnswer(message, message.stored!, [message.stored!.buffer as ArrayBuffer]);
}

if (isNode) {
  // A worker thread's port holds messages until a listener is added.
  void builtin<{ parentPort: Port & { on(event: "message", f: (m: ToWorker) => void): void } }>("worker_threads").then(
    (threads) => {
      port = threads.parentPort;
      threads.parentPort.on("message", handle);
      port.postMessage({ op: "ready" });
    },
  );
} else {
  const self = globalThis as unknown as Port & { onmessage: (event: { data: ToWorker }) => void };
  port = self;
  self.onmessage = (event) => handle(event.data);
  port.postMessage({ op: "ready" });
}
