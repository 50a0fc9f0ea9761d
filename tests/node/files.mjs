// Helpers the Node tests share (not a test file itself).
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir`, as paths. */
export function filesUnder(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The error `f` rejects with (fails the test if it does not reject). */
export async function rejection(f) {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.fail("did not reject");
}

/** The elements of a C-order array at odd indices along every dimension (slice(1, d, 2)). */
export function everyOther(values, shape) {
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const counts = shape.map((d) => Math.floor(d / 2));
  const out = new values.constructor(counts.reduce((a, b) => a * b, 1));
  const index = counts.map(() => 0);
  for (let n = 0; n < out.length; n++) {
    out[n] = values[index.reduce((at, k, i) => at + (1 + 2 * k) * strides[i], 0)];
    for (let i = index.length - 1; i >= 0 && ++index[i] === counts[i]; i--) index[i] = 0;
  }
  return out;
}
