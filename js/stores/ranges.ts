// Merged range reads: the byte ranges of one stored object (a shard's inner chunks, a referenced
// file's chunks) that reads ask for close together in time are fetched as few requests, each
// covering a run of them (gaps between them included, up to a limit), and split back.
import { codedError } from "../common/errors.js";
import type { Range } from "./store.js";
import { nextTask } from "../common/tasks.js";

/** How ranges are merged: the largest gap of unwanted bytes a request spans, and the most bytes it asks for. */
export interface MergeLimits {
  /** Ranges closer than this many bytes go in one request (the bytes between are fetched and dropped). */
  gap: number;
  /** A request asks for at most this many bytes (a single range larger than this is asked for alone). */
  size: number;
}

/**
 * The defaults: zarr-python's (`sharding_coalesce_max_gap_bytes` 1 MiB,
 * `sharding_coalesce_max_bytes` 16 MiB). A 1024^2 window of 128^2 inner chunks that cuts
 * through a shard wants rows of chunks a few hundred KB apart: one request a shard, where a
 * gap of tens of KB would make one a row. docs/benchmark-history.md has the measurements
 * (2026-11-29, a viewer's reads: merged requests).
 */
export const DEFAULT_MERGE: MergeLimits = { gap: 1 << 20, size: 16 << 20 };

/** `limits` checked (INVALID_ARGUMENT), the defaults for what is not given. */
export function mergeLimitsOf(limits: Partial<MergeLimits> | undefined): MergeLimits {
  if (limits === undefined) return DEFAULT_MERGE;
  if (typeof limits !== "object" || limits === null) {
    throw codedError("INVALID_ARGUMENT", `options.mergeRanges must be an object { gap, size }, got ${limits === null ? "null" : typeof limits}`);
  }
  const out = { ...DEFAULT_MERGE };
  for (const name of ["gap", "size"] as const) {
    const v = limits[name] as unknown;
    if (v === undefined) continue;
    if (typeof v !== "number" || !(v >= 0) || (!Number.isInteger(v) && v !== Infinity)) {
      throw codedError("INVALID_ARGUMENT", `options.mergeRanges.${name} must be an integer >= 0 or Infinity, got ${typeof v === "number" ? v : typeof v}`);
    }
    out[name] = v;
  }
  return out;
}

/** A run: one request's range and the wanted ranges it holds, by offset. */
export interface Run<T extends { range: Range }> {
  range: Range;
  items: T[];
}

/**
 * Ranges merged into runs: sorted by offset, each next range joins the run before it when the
 * gap between them is at most `limits.gap` and the run stays within `limits.size` bytes.
 * Ranges that overlap (or repeat) share a run.
 */
export function mergeRanges<T extends { range: Range }>(items: T[], limits: MergeLimits): Run<T>[] {
  const sorted = [...items].sort((a, b) => a.range.offset - b.range.offset);
  const runs: Run<T>[] = [];
  let run: Run<T> | undefined;
  for (const item of sorted) {
    const { offset, length } = item.range;
    const end = offset + length;
    if (run) {
      const runEnd = run.range.offset + run.range.length;
      const grown = Math.max(runEnd, end) - run.range.offset;
      if (offset - runEnd <= limits.gap && grown <= limits.size) {
        run.range.length = grown;
        run.items.push(item);
        continue;
      }
    }
    run = { range: { offset, length }, items: [item] };
    runs.push(run);
  }
  return runs;
}

/**
 * Collects the ranges reads ask for, by object (`key`: a store, a path, a signal, a way of
 * fetching), and hands each object's ranges on, merged into runs, in the next task: ranges
 * asked for within one task (a read's chunks of one shard; zarr.get's every chunk at once)
 * go out together.
 */
export class Coalescer {
  readonly limits: MergeLimits;
  #waiting = new Map<unknown, { items: { range: Range }[]; fetchRuns: (runs: Run<{ range: Range }>[]) => void }>();
  #flushing = false;

  constructor(limits: MergeLimits = DEFAULT_MERGE) {
    this.limits = limits;
  }

  /**
   * Asks for `item.range` of the object `key`; in the next task the object's ranges asked for
   * till then are merged and handed to `fetchRuns` (the first one given for that key).
   */
  ask<T extends { range: Range }>(key: unknown, item: T, fetchRuns: (runs: Run<T>[]) => void): void {
    let entry = this.#waiting.get(key);
    if (!entry) {
      entry = { items: [], fetchRuns: fetchRuns as (runs: Run<{ range: Range }>[]) => void };
      this.#waiting.set(key, entry);
    }
    entry.items.push(item);
    if (!this.#flushing) {
      this.#flushing = true;
      void nextTask().then(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushing = false;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { items, fetchRuns } of waiting) fetchRuns(mergeRanges(items, this.limits));
  }
}

/** The part of a run's bytes (checked by `checkRun`) that is `range`: a view, not a copy. */
export function partOf(bytes: Uint8Array, run: Range, range: Range): Uint8Array {
  const at = range.offset - run.offset;
  return bytes.subarray(at, at + range.length);
}

/** The run's bytes as a store answered them, checked: exactly as long as asked for (STORE_FAILED otherwise, naming the path and the range). */
export function checkRun(bytes: Uint8Array | undefined, path: string, run: Range): Uint8Array {
  if (!bytes || bytes.length !== run.length) {
    const said = bytes ? `${bytes.length} bytes` : "nothing (missing)";
    throw Object.assign(
      codedError("STORE_FAILED", `the store answered ${said} for bytes ${run.offset}-${run.offset + run.length - 1} of ${path} (${run.length} asked for)`),
      { key: path },
    );
  }
  return bytes;
}
