// Selections as zarr.get takes them (null, integers, zarr.slice with a step >= 1), broken into
// boxes of chunks: for each chunk a selection touches, which of its elements are selected and
// where they land in the output. Index arithmetic only: the values are the wasm's business.
import type * as zarr from "zarrita";

import { codedError } from "../common/errors.js";

/**
 * What to read, as zarrita's `get` takes it: per dimension an index (the dimension is dropped),
 * a `zarr.slice(...)`, or null (all of it); null for the whole array.
 */
export type Selection = (number | zarr.Slice | null)[] | null;

/** The selected indices of one dimension that lie in one chunk. */
export interface Piece {
  chunk: number;
  /** First selected index, in the chunk's coordinates. */
  first: number;
  step: number;
  count: number;
  /** Where the first one lands along the output's dimension. */
  outStart: number;
}

interface Dim {
  /** Selected indices along the output dimension (1 for an integer, which has none). */
  count: number;
  /** An integer selection: the dimension is dropped from the output. */
  dropped: boolean;
  pieces: Piece[];
}

/** One chunk's part of a selection: per dimension its piece. */
export interface Box {
  coords: number[];
  pieces: Piece[];
}

/** A box in its chunk as the reader and the encoder take it: (first, step, count) per dimension. */
export function regionOf(box: Box): Uint32Array {
  const region = new Uint32Array(3 * box.pieces.length);
  for (const [i, p] of box.pieces.entries()) region.set([p.first, p.step, p.count], 3 * i);
  return region;
}

export interface Plan {
  /** The chunk grid's axes (each chunk's start and size). */
  axes: Axis[];
  /** The output's shape (integer-selected dimensions dropped). */
  shape: number[];
  size: number;
  dims: Dim[];
  boxes: Box[];
}

function bad(message: string): never {
  throw codedError("INVALID_SELECTION", message);
}

/** The most chunks one read or write may touch (a plan of more is refused, not walked). */
export const MAX_BOXES = 1 << 20;

/**
 * Checks that `selection` is what zarr.get takes: null, or a list of at most one entry per
 * dimension, each null, an integer (a JavaScript number with no fraction) or a `zarr.slice`
 * (start, stop: integers or null; step: an integer >= 1 or null). Anything else would be read
 * as something it does not say.
 */
export function checkSelection(selection: unknown, ndim: number): asserts selection is Selection {
  if (selection === null || selection === undefined) return;
  if (!Array.isArray(selection)) bad(`a selection is null or a list (one entry per dimension), got ${describe(selection)}`);
  if (selection.length > ndim) bad(`too many indices for array; expected ${ndim}, got ${selection.length}`);
  selection.forEach((entry: unknown, i) => {
    if (entry === null || entry === undefined) return;
    if (typeof entry === "number") {
      if (!Number.isInteger(entry)) bad(`dimension ${i}: an index must be an integer, got ${entry}`);
      return;
    }
    const isInt = (v: unknown) => v === null || v === undefined || (typeof v === "number" && Number.isInteger(v));
    if (typeof entry === "object" && "start" in entry && "stop" in entry) {
      const { start, stop, step } = entry as { start: unknown; stop: unknown; step: unknown };
      if (isInt(start) && isInt(stop) && isInt(step)) return;
      bad(`dimension ${i}: a slice's start, stop and step must be integers or null, got ${describe(entry)}`);
    }
    bad(`dimension ${i}: an entry must be null, an integer or zarr.slice(...), got ${describe(entry)}`);
  });
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  // A slice as it was made: JSON would print a NaN or an infinite bound as null.
  if (typeof v === "object" && v !== null && "start" in v && "stop" in v) {
    const { start, stop, step } = v as { start: unknown; stop: unknown; step?: unknown };
    return `zarr.slice(${[start, stop, step ?? null].map((b) => (typeof b === "number" || b === null ? String(b) : describe(b))).join(", ")})`;
  }
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * One dimension of a chunk grid: which chunk an index lies in, where a chunk starts and how
 * long it is. A regular grid's chunks are all `chunkLen` long (the last one reaching past the
 * array); a rectilinear grid's are its edges.
 */
export interface Axis {
  chunkOf(index: number): number;
  start(chunk: number): number;
  size(chunk: number): number;
}

/** A regular grid's axis. */
export function regularAxis(chunkLen: number): Axis {
  const len = Math.max(chunkLen, 1);
  return { chunkOf: (i) => Math.floor(i / len), start: (c) => c * len, size: () => len };
}

/** The last place in `sorted` (ascending, its first entry 0) whose entry is at most `v`. */
function lastAtMost(sorted: readonly number[], v: number): number {
  let [lo, hi] = [0, sorted.length - 1];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A rectilinear grid's axis, from its runs of (edge, count). */
export function rectilinearAxis(runs: readonly (readonly [number, number])[]): Axis {
  // Where each run's first chunk starts, in elements and in chunks.
  const at: number[] = [];
  const first: number[] = [];
  let [elements, chunks] = [0, 0];
  for (const [edge, count] of runs) {
    at.push(elements);
    first.push(chunks);
    elements += edge * count;
    chunks += count;
  }
  const runOfIndex = (i: number) => lastAtMost(at, i);
  const runOfChunk = (c: number) => lastAtMost(first, c);
  return {
    chunkOf(i) {
      const r = runOfIndex(i);
      return first[r] + Math.floor((i - at[r]) / runs[r][0]);
    },
    start(c) {
      const r = runOfChunk(c);
      return at[r] + (c - first[r]) * runs[r][0];
    },
    size: (c) => runs[runOfChunk(c)][0],
  };
}

/** The axes of a grid: regular (`chunkShape`), or rectilinear (`edges`: each dimension's runs). */
export function axesOf(chunkShape: number[], edges?: readonly (readonly (readonly [number, number])[])[] | null): Axis[] {
  return edges ? edges.map((runs) => rectilinearAxis(runs)) : chunkShape.map((len) => regularAxis(len));
}

function pieces(start: number, step: number, count: number, axis: Axis, dimLen: number): Piece[] {
  const out: Piece[] = [];
  let index = start;
  let done = 0;
  while (done < count) {
    const chunk = axis.chunkOf(index);
    const from = axis.start(chunk);
    const end = Math.min(from + axis.size(chunk), dimLen);
    const n = Math.min(count - done, Math.floor((end - 1 - index) / step) + 1);
    out.push({ chunk, first: index - from, step, count: n, outStart: done });
    done += n;
    index += n * step;
  }
  return out;
}

/** One dimension's selected indices: `count` from `start`, `step` apart. */
interface Range {
  start: number;
  step: number;
  count: number;
  dropped: boolean;
}

function range(sel: number | zarr.Slice | null | undefined, dimLen: number): Range {
  if (typeof sel === "number") {
    const i = sel < 0 ? sel + dimLen : sel;
    if (!(i >= 0 && i < dimLen)) bad(`index ${sel} out of bounds for dimension with length ${dimLen}`);
    return { start: i, step: 1, count: 1, dropped: true };
  }
  if (sel === null || sel === undefined) return { start: 0, step: 1, count: dimLen, dropped: false };
  const step = sel.step ?? 1;
  if (!(step >= 1) || !Number.isInteger(step)) bad("only slices with step >= 1 are supported");
  const clamp = (v: number | null, whenNull: number) => {
    if (v === null || v === undefined) return whenNull;
    const w = v < 0 ? v + dimLen : v;
    return Math.min(Math.max(Math.trunc(w), 0), dimLen);
  };
  const start = clamp(sel.start, 0);
  const stop = clamp(sel.stop, dimLen);
  return { start, step, count: Math.max(0, Math.ceil((stop - start) / step)), dropped: false };
}

/** How many chunks of an axis a range touches. */
function chunksOf(r: Range, axis: Axis): number {
  if (r.count === 0) return 0;
  const last = r.start + (r.count - 1) * r.step;
  const spanned = axis.chunkOf(last) - axis.chunkOf(r.start) + 1;
  return Math.min(r.count, spanned);
}

/**
 * Makes a read's output (`make`), refusing with TOO_LARGE where the engine cannot allocate
 * that many values.
 */
export function allocate<T>(values: number, bytesPerValue: number, make: () => T): T {
  try {
    return make();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw codedError("TOO_LARGE", `the output would hold ${values} values (${values * bytesPerValue} bytes), more than can be allocated here: select less`, e);
  }
}

/**
 * The boxes of the chunks that a selection of an array of `shape` reads: `chunkShape`-sized
 * chunks, or the chunks of a rectilinear grid (`edges`, see `axesOf`).
 */
export function planSelection(
  selection: Selection,
  shape: number[],
  chunkShape: number[],
  edges?: readonly (readonly (readonly [number, number])[])[] | null,
): Plan {
  checkSelection(selection, shape.length);
  const axes = axesOf(chunkShape, edges);
  const ranges = shape.map((len, i) => range(selection?.[i] ?? null, len));
  // How many chunks and values, before any list of them is made: a shape from a metadata
  // mistake or a hostile store must be refused, not walked.
  const values = ranges.reduce((n, r) => n * r.count, 1);
  const chunks = ranges.reduce((n, r, i) => n * chunksOf(r, axes[i]), 1);
  if (chunks > MAX_BOXES || values > Number.MAX_SAFE_INTEGER) {
    const what = chunks > MAX_BOXES ? `${chunks.toExponential(2)} chunks (at most ${MAX_BOXES} in one call)` : `${values.toExponential(2)} values`;
    throw codedError("TOO_LARGE", `the selection spans ${what}: select less`);
  }
  const dims: Dim[] = ranges.map((r, i) => ({
    count: r.count,
    dropped: r.dropped,
    pieces: values === 0 ? [] : pieces(r.start, r.step, r.count, axes[i], shape[i]),
  }));
  const outShape = dims.filter((d) => !d.dropped).map((d) => d.count);
  const size = dims.reduce((n, d) => n * d.count, 1);
  const boxes: Box[] = [];
  if (size > 0) {
    const walk = (k: number, chosen: Piece[]) => {
      if (k === dims.length) {
        boxes.push({ coords: chosen.map((p) => p.chunk), pieces: chosen.slice() });
        return;
      }
      for (const p of dims[k].pieces) {
        chosen.push(p);
        walk(k + 1, chosen);
        chosen.pop();
      }
    };
    walk(0, []);
  }
  return { shape: outShape, size, dims, boxes, axes };
}

/**
 * Where a box's elements go in a C-order output: they come in runs of `runLength` values that
 * are contiguous in the output, and `runStart(r)` is where run `r` begins.
 */
export function boxRuns(plan: Plan, box: Box): { runLength: number; runs: number; runStart(r: number): number } {
  const n = plan.dims.length;
  // Output strides per array dimension (0 for a dropped one).
  const outStride = new Array<number>(n).fill(0);
  let step = 1;
  for (let k = n - 1; k >= 0; k--) {
    if (!plan.dims[k].dropped) {
      outStride[k] = step;
      step *= plan.dims[k].count;
    }
  }
  // Inner dimensions the box spans whole are contiguous with the one outside them.
  let j = n - 1;
  while (j > 0 && box.pieces[j].count === plan.dims[j].count) j--;
  let runLength = 1;
  for (let k = Math.max(j, 0); k < n; k++) runLength *= box.pieces[k].count;
  let base = 0;
  for (let k = 0; k < n; k++) base += box.pieces[k].outStart * outStride[k];
  const outer = box.pieces.slice(0, Math.max(j, 0)).map((p) => p.count);
  const runs = outer.reduce((a, b) => a * b, 1);
  return {
    runLength,
    runs,
    runStart(r: number) {
      let offset = base;
      for (let k = outer.length - 1; k >= 0; k--) {
        offset += (r % outer[k]) * outStride[k];
        r = Math.floor(r / outer[k]);
      }
      return offset;
    },
  };
}
