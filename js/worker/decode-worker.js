// The body of a pool worker (see js/pool.ts). scripts/build.mjs joins it after wasm-bindgen's
// no-modules glue of the core and packing modules (`glue.core`, `glue.packing`) into one
// classic script, which runs as a Web Worker (from a blob: URL) or as a Node worker thread
// (`eval`). The main thread sends each module once, compiled; then jobs: one stored chunk to
// decode, a box of it, and where the box's values go (a shared output, an output this worker
// assembles, or a buffer sent back); and, for reads with no shared output, the messages of
// the output this worker assembles (see `assemble`).
/* global glue */
"use strict";

const node = typeof self === "undefined" || typeof self.postMessage !== "function";
/** A Node built-in (the script may run as CommonJS or, under --input-type=module, as ESM). */
async function builtin(name) {
  const p = globalThis.process;
  if (p && p.getBuiltinModule) return p.getBuiltinModule(name);
  // eslint-disable-next-line no-undef
  if (typeof require === "function") return require(name);
  return import(`node:${name}`);
}
let port;
let zlib;

const OUT = {
  Int8Array, Int16Array, Int32Array, BigInt64Array, Uint8Array, Uint16Array, Uint32Array,
  BigUint64Array, Float32Array, Float64Array,
  Float16Array: globalThis.Float16Array,
};

/**
 * Outputs this worker assembles, by read (reads with no shared output): the main thread
 * sends other workers' boxes here, and this worker's own jobs of the read write straight in.
 */
const outputs = new Map();

/** Per module kind: its bindings and memory, once the main thread has sent the module. */
const started = {};
/** Readers by array key, most recently used last; a few are kept. */
const readers = new Map();
const KEEP = 16;

function reader(kind, key, text) {
  const id = `${kind}:${key}`;
  let found = readers.get(id);
  if (found) {
    readers.delete(id);
  } else {
    const { bindings } = started[kind];
    found = kind === "core" ? new bindings.ArrayReader(text) : new bindings.DecodedReader(text);
    if (found.fallback !== undefined) throw Object.assign(new Error(found.fallback), { code: "INVALID_METADATA" });
  }
  readers.set(id, found);
  while (readers.size > KEEP) {
    const [oldest, r] = readers.entries().next().value;
    readers.delete(oldest);
    r.free();
  }
  return found;
}

async function gunzip(bytes) {
  if (zlib) return zlib.gunzipSync(bytes);
  // A Response's body rather than a Blob's stream: about a third faster in Chromium.
  const body = new Response(bytes).body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(body).arrayBuffer());
}

const TILE_BYTES = 64 * 1024;

/**
 * Decodes the box `region` of one stored chunk with the array's reader and writes its values
 * to `out` (a view of the shared output) run by run, or, with no shared output, into a new
 * buffer in the box's C order, which is returned.
 */
async function decode(job) {
  let stored = job.stored;
  for (let i = job.gzip; i > 0; i--) stored = await gunzip(stored);
  const Out = OUT[job.type];
  const { memory } = started[job.kind];
  const r = reader(job.kind, job.key, job.text);
  const direct = placeStored(r, stored, job, Out);
  if (direct !== false) return direct;
  const total = r.setChunk(stored, job.region);
  const tileLength = Math.max(1, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT));
  const out = target(job, Out);
  const box = out ? undefined : new Out(total);
  const { runLength, starts } = job;
  for (let from = 0; from < total; from += tileLength) {
    const n = Math.min(tileLength, total - from);
    // The call first: it may grow the memory, which replaces memory.buffer.
    const address = r.decodeTile(from, n);
    const tile = new Out(memory.buffer, address, n);
    if (box) {
      box.set(tile, from);
      continue;
    }
    let position = from;
    while (position < from + n) {
      const run = Math.floor(position / runLength);
      const within = position - run * runLength;
      const length = Math.min(runLength - within, from + n - position);
      out.set(tile.subarray(position - from, position - from + length), starts[run] + within);
      position += length;
    }
  }
  return box && box.buffer;
}

/** Where a job's values go: the shared output, or an output this worker assembles. */
function target(job, Out) {
  if (job.out) return new Out(job.out);
  const entry = outputs.get(job.read);
  return entry && entry.out;
}

/** Copies `values` (the runs' values one after another) to the runs at `starts` of `out`. */
function placeRuns(out, values, runLength, starts) {
  for (let r = 0; r < starts.length; r++) {
    out.set(values.subarray(r * runLength, (r + 1) * runLength), starts[r]);
  }
}

/** Writes a value (its bytes, `fill`) to the runs at `starts` of `out`, a tile at a time. */
function fillRuns(out, fill, runLength, starts) {
  const Out = out.constructor;
  const n = Math.max(1, Math.min(runLength, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT)));
  const row = new Uint8Array(n * fill.length);
  for (let i = 0; i < n; i++) row.set(fill, i * fill.length);
  const values = new Out(row.buffer);
  for (let r = 0; r < starts.length; r++) {
    for (let done = 0; done < runLength; done += n) {
      out.set(values.subarray(0, Math.min(n, runLength - done)), starts[r] + done);
    }
  }
}

/**
 * The messages of an assembled read: "begin" makes its output, "place" copies a box another
 * worker decoded (or, with no buffer, writes the fill value to a missing chunk's runs), "end"
 * hands the output over, "abort" drops it. A read that was aborted (or never begun here)
 * ignores the rest.
 */
function assemble(message) {
  const entry = outputs.get(message.read);
  const out = entry && entry.out;
  switch (message.op) {
    case "begin":
      outputs.set(message.read, { out: new OUT[message.type](message.length), fill: message.fill });
      return;
    case "place":
      if (!out) return;
      if (message.buffer) placeRuns(out, new out.constructor(message.buffer), message.runLength, message.starts);
      else fillRuns(out, entry.fill, message.runLength, message.starts);
      return;
    case "abort":
      outputs.delete(message.read);
      return;
    case "end": {
      outputs.delete(message.read);
      const buffer = out ? out.buffer : undefined;
      const error = out ? undefined : { message: "the read's output is gone", name: "Error", code: "WORKER_LOST" };
      port.postMessage({ job: message.job, buffer, error }, buffer ? [buffer] : []);
    }
  }
}

/** Per reader: the C-order strides of its (inner) chunks, when its stored bytes are values. */
const plainChunks = new WeakMap();

/**
 * Where a chunk's stored bytes are its values (`bytes` alone, little endian: the wasm says
 * so and checks the chunk's length and the box, with its own errors), copies the box's rows
 * straight from them, with no pass through wasm memory. False where that does not apply.
 */
function placeStored(r, stored, job, Out) {
  const region = job.region;
  if (job.kind !== "core" || region.length === 0 || region[region.length - 2] !== 1) return false;
  let strides = plainChunks.get(r);
  if (strides === undefined) {
    strides = null;
    if (r.storedAsValues) {
      const layout = JSON.parse(r.layoutJson);
      const shape = (layout.shard && layout.shard.chunk_shape) || layout.chunk_shape;
      strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    }
    plainChunks.set(r, strides);
  }
  if (!strides) return false;
  const total = r.checkChunk(stored.length, region);
  // A typed view needs an aligned offset (zlib's output may sit anywhere in a pool).
  if (stored.byteOffset % Out.BYTES_PER_ELEMENT) stored = stored.slice();
  const values = new Out(stored.buffer, stored.byteOffset, stored.byteLength / Out.BYTES_PER_ELEMENT);
  const dims = region.length / 3;
  const rowLength = region[region.length - 1];
  const out = target(job, Out);
  const box = out ? undefined : new Out(total);
  const index = new Array(dims - 1).fill(0);
  for (let done = 0; done < total; done += rowLength) {
    let from = region[region.length - 3];
    for (let k = 0; k < dims - 1; k++) from += (region[3 * k] + index[k] * region[3 * k + 1]) * strides[k];
    const row = values.subarray(from, from + rowLength);
    if (box) {
      box.set(row, done);
    } else {
      // Runs are whole rows of the box (or several), so a row lies in one run.
      const run = Math.floor(done / job.runLength);
      out.set(row, job.starts[run] + done - run * job.runLength);
    }
    for (let k = dims - 2; k >= 0; k--) {
      if (++index[k] < region[3 * k + 2]) break;
      index[k] = 0;
    }
  }
  return box && box.buffer;
}

function errorOf(e) {
  if (e instanceof Error) return { message: e.message, name: e.name, code: e.code };
  return { message: String(e), name: "Error", code: undefined };
}

async function handle(message) {
  if (message.op === "start") {
    const bindings = glue[message.kind];
    const exports = bindings.initSync({ module: message.module });
    started[message.kind] = { bindings, memory: exports.memory };
    return;
  }
  if (message.op) {
    assemble(message);
    return;
  }
  // The stored bytes' buffer goes back too, for the main thread to copy the next chunk into
  // (memory already in use there, rather than fresh pages for every chunk).
  const input = message.stored.buffer;
  try {
    const buffer = await decode(message);
    port.postMessage({ job: message.job, buffer, input }, buffer ? [buffer, input] : [input]);
  } catch (e) {
    port.postMessage({ job: message.job, error: errorOf(e), input }, [input]);
  }
}

if (node) {
  // A worker thread's port holds messages until a listener is added.
  Promise.all([builtin("worker_threads"), builtin("zlib")]).then(([threads, z]) => {
    zlib = z;
    port = threads.parentPort;
    port.on("message", handle);
  });
} else {
  port = self;
  self.onmessage = (event) => handle(event.data);
}
