// Arrays of strings and of bytes of any length (zarr v3 `string` with vlen-utf8 and
// `variable_length_bytes` with vlen-bytes; zarr v2 `|O` with that filter), read and written on
// the package's own path: the core reads the metadata and checks each chunk's framing
// (`vlenItems`) and frames what a write encodes (`vlenFrame`); the compress and encode modules
// run the bytes -> bytes codecs, as for every other array. zarrita's registry runs a codec
// those modules lack. Items become JavaScript strings (UTF-8 checked: a chunk that is not
// UTF-8 is CORRUPT_CHUNK) or Uint8Arrays, one thread (a pool, if given, is not used: an item
// has no fixed size to decode into shared memory).
import * as zarr from "zarrita";

import { codedError, namingChunk } from "../common/errors.js";
import { chunkFetcher, chunkKey, decodeBytes, registryBytesCodecs, type BytesCodec } from "./fetch.js";
import { type Bindings, loadModule, loadWasm, memoryOf } from "../loading/load.js";
import { metadataText } from "../metadata/metadata.js";
import { bytesModuleOf, encodeModuleOf, stepClass } from "../modules.js";
import { stageOf, unpack } from "../kernels/place.js";
import { eachLimited } from "./schedule.js";
import { boxRuns, type Box, planSelection, type Plan, type Selection } from "./select.js";
import { cOrderStrides } from "../common/strides.js";
import type { CompressorClass } from "../kernels/encode.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/** What the core's `vlenLayoutJson` gives (src/layout/vlen.rs). */
interface VlenLayout {
  utf8: boolean;
  shape: number[];
  chunk_shape: number[];
  key_v2: boolean;
  key_separator: string;
  codecs: { name: string; configuration?: unknown }[];
  codecs_fallback: string | null;
  fill: number[];
}

/** An item: a string, or its bytes. */
type Item = string | Uint8Array;

/** A string or bytes array's access: its layout, and its codecs in each direction. */
interface VlenAccess {
  layout: VlenLayout;
  wasm: Bindings;
  /** A chunk's stored bytes to its framing (the bytes -> bytes codecs undone). */
  unframe(stored: Uint8Array): Promise<Uint8Array>;
  /** A chunk's framing to its stored bytes. */
  frame(framed: Uint8Array): Promise<Uint8Array>;
  registry: BytesCodec[];
  fill: Item;
}

const accesses = new WeakMap<object, Promise<VlenAccess | undefined>>();

/**
 * `arr`'s access as an array of strings or bytes of any length; undefined for any other array
 * (and for a sharded one, which zarrita reads). Built once per array object.
 */
export function vlenAccess(arr: Readable): Promise<VlenAccess | undefined> {
  let found = accesses.get(arr);
  if (!found) {
    found = build(arr);
    found.catch(() => accesses.delete(arr));
    accesses.set(arr, found);
  }
  return found;
}

async function build(arr: Readable): Promise<VlenAccess | undefined> {
  const found = await metadataText(arr);
  if (!found) return undefined;
  const wasm = await loadWasm();
  const json = wasm.vlenLayoutJson(found.text);
  if (json === undefined) return undefined;
  const layout = JSON.parse(json) as VlenLayout;
  const registry: BytesCodec[] = [];
  let unframe = async (stored: Uint8Array) => stored;
  let frame = async (framed: Uint8Array) => framed;
  if (layout.codecs.length && layout.codecs_fallback === null) {
    const codecs = JSON.stringify(layout.codecs);
    const kind = bytesModuleOf(layout.codecs);
    const glue = await loadModule(kind);
    const decoder = stageOf({ kind, codecs, itemSize: 1, expected: undefined }, stepClass(kind, glue));
    const memory = memoryOf(glue);
    // (A view of the module's memory, copied before anything else runs there.)
    unframe = async (stored) => unpack(decoder, memory, stored).slice();
    const encodeModule = encodeModuleOf(layout.codecs);
    const encodeGlue = await loadModule(encodeModule);
    // A configuration the module refuses is this array's error (INVALID_CONFIG).
    const encoder = new (encodeGlue.Compressor as CompressorClass)(codecs, 1);
    frame = async (framed) => encoder.encode(framed);
  } else if (layout.codecs.length) {
    const codecs = await registryBytesCodecs(layout.codecs, "uint8", [1]);
    if (typeof codecs === "string") throw codedError("UNKNOWN_CODEC", `${codecs} (${layout.codecs_fallback})`);
    registry.push(...codecs);
    unframe = (stored) => decodeBytes(registry, stored);
    frame = async (framed) => {
      for (const c of registry) framed = await c.encode!(framed);
      return framed;
    };
  }
  const fillBytes = Uint8Array.from(layout.fill);
  const fill = layout.utf8 ? new TextDecoder("utf-8", { fatal: true }).decode(fillBytes) : fillBytes;
  return { layout, wasm, unframe, frame, registry, fill };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A chunk's items (`count`, C order), from its stored bytes; undefined for a missing chunk. */
async function chunkItems(v: VlenAccess, key: string, stored: Uint8Array, count: number): Promise<Item[]> {
  return namingChunk(key, async () => {
    const framed = await v.unframe(stored);
    const at = v.wasm.vlenItems(framed, count);
    const items = new Array<Item>(count);
    for (let i = 0; i < count; i++) {
      const bytes = framed.subarray(at[2 * i], at[2 * i] + at[2 * i + 1]);
      if (!v.layout.utf8) {
        items[i] = bytes.slice();
        continue;
      }
      try {
        items[i] = utf8.decode(bytes);
      } catch {
        throw codedError("CORRUPT_CHUNK", `vlen-utf8: item ${i} is not UTF-8`);
      }
    }
    return items;
  });
}

/** A fresh item of the fill value (bytes are copied, so that items never share a buffer). */
function fillItem(v: VlenAccess): Item {
  return typeof v.fill === "string" ? v.fill : v.fill.slice();
}

/** For each element of `box` (C order over the box), its place in its chunk (C order). */
function chunkPlaces(box: Box, chunkShape: number[]): Int32Array {
  const counts = box.pieces.map((p) => p.count);
  const n = counts.reduce((a, b) => a * b, 1);
  const strides = cOrderStrides(chunkShape);
  const out = new Int32Array(n);
  const index = new Array<number>(counts.length).fill(0);
  for (let e = 0; e < n; e++) {
    let at = 0;
    for (let d = 0; d < counts.length; d++) at += (box.pieces[d].first + box.pieces[d].step * index[d]) * strides[d];
    out[e] = at;
    for (let d = counts.length - 1; d >= 0; d--) {
      if (++index[d] < counts[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

/** For each element of `box` (C order over the box), its place in the output (see `boxRuns`). */
function outPlaces(plan: Plan, box: Box): Int32Array {
  const { runLength, runs, runStart } = boxRuns(plan, box);
  const out = new Int32Array(runLength * runs);
  for (let r = 0; r < runs; r++) {
    const start = runStart(r);
    for (let i = 0; i < runLength; i++) out[r * runLength + i] = start + i;
  }
  return out;
}

interface VlenReadOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  concurrency?: number;
  out?: unknown;
}

/**
 * `get` of an array of strings or bytes: zarr.get's result (a JavaScript array of the items,
 * shape, C-order stride; the one item when every dimension is an integer).
 */
export async function vlenRead(arr: Readable, v: VlenAccess, selection: Selection, options: VlenReadOptions) {
  if (options.out !== undefined) {
    throw codedError("WRONG_ARRAY_TYPE", "options.out: strings and bytes of any length are read into a new array, not a typed array");
  }
  const plan = planSelection(selection, v.layout.shape, v.layout.chunk_shape);
  const out = new Array<Item>(plan.size);
  const fetch = chunkFetcher(arr, { layout: { ...v.layout, shard: null }, compressors: [], index: null }, options);
  const count = v.layout.chunk_shape.reduce((a, b) => a * b, 1);
  let done = 0;
  await eachLimited(plan.boxes, options.concurrency ?? 16, async (box) => {
    options.signal?.throwIfAborted();
    const { key, bytes } = await fetch(box.coords);
    const items = bytes ? await chunkItems(v, key, bytes, count) : undefined;
    const from = chunkPlaces(box, v.layout.chunk_shape);
    const to = outPlaces(plan, box);
    for (let e = 0; e < from.length; e++) out[to[e]] = items ? items[from[e]] : fillItem(v);
    options.onProgress?.(++done, plan.boxes.length);
  });
  if (plan.boxes.length === 0) options.onProgress?.(0, 0);
  if (plan.shape.length === 0) return out[0];
  return { data: out, shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/** The items `set` was given for a selection of `plan`: a value for every element, or one for all. */
function itemsGiven(v: VlenAccess, plan: Plan, value: unknown): { at(i: number): Item } {
  const what = v.layout.utf8 ? "a string" : "a Uint8Array";
  const isItem = (x: unknown): x is Item => (v.layout.utf8 ? typeof x === "string" : x instanceof Uint8Array);
  if (isItem(value)) return { at: () => value };
  const given = value as { data?: unknown; shape?: unknown; stride?: unknown } | null;
  if (!given || typeof given !== "object" || !Array.isArray(given.data)) {
    throw codedError("WRONG_ARRAY_TYPE", `the value must be ${what} or { data, shape, stride } with data an Array of them`);
  }
  const shape = given.shape;
  if (!Array.isArray(shape) || shape.length !== plan.shape.length || shape.some((d, i) => d !== plan.shape[i])) {
    throw codedError("SHAPE_MISMATCH", `the value's shape ${JSON.stringify(shape)} is not the selection's [${plan.shape}]`);
  }
  const stride = (given.stride ?? cOrderStrides(plan.shape)) as number[];
  if (!Array.isArray(stride) || stride.length !== plan.shape.length || stride.some((s) => !Number.isInteger(s))) {
    throw codedError("INVALID_ARGUMENT", `the value's stride ${JSON.stringify(given.stride)} is not one integer per dimension`);
  }
  const data = given.data as unknown[];
  const c = cOrderStrides(plan.shape);
  // (Each index of the selection, C order, to its place in `data` by the value's stride.)
  const place = (i: number) => {
    let at = 0;
    for (let d = 0; d < c.length; d++) {
      at += Math.floor(i / c[d]) % plan.shape[d] * stride[d];
    }
    return at;
  };
  for (let i = 0; i < plan.size; i++) {
    const at = place(i);
    if (at < 0 || at >= data.length || !isItem(data[at])) {
      throw codedError("WRONG_ARRAY_TYPE", `value element ${i} (data[${at}]) is not ${what}`);
    }
  }
  return { at: (i) => data[place(i)] as Item };
}

const utf8Encoder = new TextEncoder();

/**
 * `set` of an array of strings or bytes: every chunk the selection touches encoded (a chunk it
 * covers in part read first), staged by store path for `set` to store all or nothing.
 */
export async function vlenWrite(
  arr: zarr.Array<zarr.DataType, zarr.Mutable>,
  v: VlenAccess,
  selection: Selection,
  value: unknown,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void },
): Promise<Map<zarr.AbsolutePath, Uint8Array>> {
  const plan = planSelection(selection, v.layout.shape, v.layout.chunk_shape);
  const given = itemsGiven(v, plan, value);
  const fetch = chunkFetcher(arr as Readable, { layout: { ...v.layout, shard: null }, compressors: [], index: null }, options);
  const count = v.layout.chunk_shape.reduce((a, b) => a * b, 1);
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  let done = 0;
  await eachLimited(plan.boxes, 8, async (box) => {
    options.signal?.throwIfAborted();
    const from = chunkPlaces(box, v.layout.chunk_shape);
    const to = outPlaces(plan, box);
    const key = chunkKey(v.layout, box.coords);
    let items: Item[];
    if (from.length === count) {
      items = new Array<Item>(count);
    } else {
      const old = await fetch(box.coords);
      items = old.bytes ? await chunkItems(v, old.key, old.bytes, count) : Array.from({ length: count }, () => fillItem(v));
    }
    for (let e = 0; e < from.length; e++) items[from[e]] = given.at(to[e]);
    const encoded = await namingChunk(key, async () => {
      const parts = items.map((x) => (typeof x === "string" ? utf8Encoder.encode(x) : x));
      const lengths = Uint32Array.from(parts, (p) => p.length);
      const data = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
      let at = 0;
      for (const p of parts) {
        data.set(p, at);
        at += p.length;
      }
      return v.frame(v.wasm.vlenFrame(lengths, data));
    });
    staged.set(arr.resolve(key).path, encoded);
    options.onProgress?.(++done, plan.boxes.length);
  });
  return staged;
}
