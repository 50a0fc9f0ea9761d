// A helper the Node tests share (not a test file itself).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir`, as paths. */
export function filesUnder(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
