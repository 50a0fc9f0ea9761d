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
