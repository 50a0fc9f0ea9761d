// Selections as zarr.get takes them (null, integers, zarr.slice with a step >= 1), broken into
// boxes of chunks: for each chunk a selection touches, which of its elements are selected and
// where they land in the output. Index arithmetic only: the values are the wasm's business.
import * as zarr from "zarrita";

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

export interface Plan {
  /** The output's shape (integer-selected dimensions dropped). */
  shape: number[];
  size: number;
  dims: Dim[];
  boxes: Box[];
}

function bad(message: string): never {
  throw new zarr.InvalidSelectionError(message);
}

function pieces(start: number, step: number, count: number, chunkLen: number, dimLen: number): Piece[] {
  const out: Piece[] = [];
  let index = start;
  let done = 0;
  while (done < count) {
    const chunk = Math.floor(index / chunkLen);
    const end = Math.min((chunk + 1) * chunkLen, dimLen);
    const n = Math.min(count - done, Math.floor((end - 1 - index) / step) + 1);
    out.push({ chunk, first: index - chunk * chunkLen, step, count: n, outStart: done });
    done += n;
    index += n * step;
  }
  return out;
}

function dim(sel: number | zarr.Slice | null | undefined, dimLen: number, chunkLen: number): Dim {
  if (typeof sel === "number") {
    let i = Math.trunc(sel);
    if (i < 0) i += dimLen;
    if (!(i >= 0 && i < dimLen)) bad(`index out of bounds for dimension with length ${dimLen}`);
    return { count: 1, dropped: true, pieces: pieces(i, 1, 1, chunkLen, dimLen) };
  }
  if (sel === null || sel === undefined) {
    return { count: dimLen, dropped: false, pieces: pieces(0, 1, dimLen, chunkLen, dimLen) };
  }
  const step = sel.step ?? 1;
  if (!(step >= 1) || !Number.isInteger(step)) bad("only slices with step >= 1 are supported");
  const clamp = (v: number | null, whenNull: number) => {
    if (v === null || v === undefined) return whenNull;
    const w = v < 0 ? v + dimLen : v;
    return Math.min(Math.max(Math.trunc(w), 0), dimLen);
  };
  const start = clamp(sel.start, 0);
  const stop = clamp(sel.stop, dimLen);
  const count = Math.max(0, Math.ceil((stop - start) / step));
  return { count, dropped: false, pieces: pieces(start, step, count, chunkLen, dimLen) };
}

/** The boxes of `chunkShape`-sized chunks that a selection of an array of `shape` reads. */
export function planSelection(selection: Selection, shape: number[], chunkShape: number[]): Plan {
  if (selection !== null && selection.length > shape.length) {
    bad(`too many indicies for array; expected ${shape.length}, got ${selection.length}`);
  }
  const dims = shape.map((len, i) => dim(selection?.[i] ?? null, len, chunkShape[i]));
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
  return { shape: outShape, size, dims, boxes };
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
