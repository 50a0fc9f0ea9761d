// The package's error codes: the exported list is every code the wasm and the JavaScript side
// raise, and errorCode finds the code where zarrita wraps the package's error in its own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { createChain, ERROR_CODES, errorCode, isCodecError, registerCodecs } from "zarr-wasm-codecs";
import { filesUnder } from "../shared/files.mjs";

registerCodecs();
const root = fileURLToPath(new URL("../../../", import.meta.url));

test("ERROR_CODES lists every code the wasm and the JavaScript side raise, once", () => {
  const rust = readFileSync(join(root, "src/error.rs"), "utf8");
  const fromRust = [...rust.matchAll(/Error::\w+ \{ \.\. \} => "([A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(fromRust.length >= 12, `${fromRust.length} codes in src/error.rs`);
  // (Every source file of js/, in its folders; not the generated glue.)
  const js = filesUnder(join(root, "js"))
    .filter((f) => /\.(ts|js)$/.test(f) && !f.includes(`${sep}wasm${sep}`))
    .map((f) => readFileSync(f, "utf8"));
  const fromJs = js.flatMap((text) => [...text.matchAll(/codedError\(\s*"([A-Z_]+)"|code: "([A-Z_]+)"/g)].map((m) => m[1] ?? m[2]));
  assert.ok(fromJs.length >= 10, `${fromJs.length} codes raised in js/`);
  for (const code of [...fromRust, ...fromJs]) assert.ok(ERROR_CODES.includes(code), `${code} is not in ERROR_CODES`);
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
  // The errors page names each of them.
  const page = readFileSync(join(root, "docs/errors.md"), "utf8");
  for (const code of ERROR_CODES) assert.match(page, new RegExp(`\`${code}\``), `${code} in docs/errors.md`);
});

test("errorCode finds the package's code inside zarrita's CodecPipelineError", async () => {
  const meta = {
    zarr_format: 3, node_type: "array", shape: [4, 4], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4, 4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [
      { name: "scale_offset", configuration: { offset: 0, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "int16" } },
      { name: "bytes", configuration: { endian: "little" } },
    ],
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))], ["/c/0/0", new Uint8Array(31)]]);
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const e = await zarr.get(arr).then(() => assert.fail("read a 31-byte chunk"), (x) => x);
  assert.equal(isCodecError(e), false, "zarrita's own error");
  assert.equal(errorCode(e), "CHUNK_LENGTH");
  // A value that does not fit: CAST, with zarrita's error around it.
  const w = await zarr.set(arr, null, { data: new Float64Array(16).fill(1e9), shape: [4, 4], stride: [4, 1] }).then(
    () => assert.fail("wrote 1e10 as int16"),
    (x) => x,
  );
  assert.equal(errorCode(w), "CAST");
});

test("errorCode and isCodecError on the package's own errors and on others", async () => {
  const e = await createChain({ data_type: "float64", codecs: [{ name: "scale_offset", configuration: { scale: "x" } }] }).then(
    () => assert.fail("built a chain with scale 'x'"),
    (x) => x,
  );
  assert.equal(isCodecError(e), true);
  assert.equal(errorCode(e), e.code);
  assert.ok(ERROR_CODES.includes(e.code));
  assert.equal(errorCode(new Error("other")), undefined);
  assert.equal(errorCode(Object.assign(new Error("fs"), { code: "ENOENT" })), undefined);
  assert.equal(errorCode(undefined), undefined);
  assert.equal(errorCode("CAST"), undefined);
  const cycle = new Error("a");
  cycle.cause = cycle;
  assert.equal(errorCode(cycle), undefined);
});

test("errorCode reads a code written at the start of a message, as errors from fizarrita's workers reach the page", () => {
  // fizarrita's RPC rejects with a new Error holding the worker's message alone.
  const message = "[CHUNK_LENGTH] chunk has 256 elements but its shape and data type need 32";
  assert.equal(errorCode(new Error(message)), "CHUNK_LENGTH");
  assert.equal(isCodecError(new Error(message)), false);
  assert.equal(errorCode(new Error("reading failed", { cause: new Error(message) })), "CHUNK_LENGTH");
  // Only a code of the package's, in that form, at the start.
  for (const other of ["[NOT_A_CODE] x", "[CHUNK_LENGTH]x", "x [CHUNK_LENGTH] y", "CHUNK_LENGTH: x"]) {
    assert.equal(errorCode(new Error(other)), undefined, other);
  }
  assert.equal(errorCode(message), undefined);
  // An error with a code of its own answers that code.
  assert.equal(errorCode(Object.assign(new Error("[CAST] x"), { code: "CHECKSUM" })), "CHECKSUM");
});

test("get, set and getDecoded name the array in the package's errors", async () => {
  const { getDecoded, set: write, get: read } = await import("zarr-wasm-codecs");
  const meta = {
    zarr_format: 3, node_type: "array", shape: [4], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }],
  };
  const store = new Map([["/sst/zarr.json", new TextEncoder().encode(JSON.stringify(meta))], ["/sst/c/0", new Uint8Array(3)]]);
  const arr = await zarr.open.v3(zarr.root(store).resolve("sst"), { kind: "array" });
  for (const [what, run, code] of [
    ["get", () => read(arr), "CHUNK_LENGTH"],
    ["getDecoded", () => getDecoded(arr), "CHUNK_LENGTH"],
    ["set", () => write(arr, null, { data: Float64Array.of(1, 2, 300, 4), shape: [4], stride: [1] }), "CAST"],
  ]) {
    const e = await run().then(() => assert.fail(`${what} did not fail`), (x) => x);
    assert.equal(e.code, code, what);
    assert.match(e.message, /^array "\/sst": /, what);
  }
});

test("a value cast_value refuses after scale_offset: the message gives the value as written and as scaled", async () => {
  const { set: write } = await import("zarr-wasm-codecs");
  const meta = {
    zarr_format: 3, node_type: "array", shape: [4], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [
      { name: "scale_offset", configuration: { offset: -10, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "int8" } },
      { name: "bytes" },
    ],
  };
  const store = new Map([["/t/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const arr = await zarr.open.v3(zarr.root(store).resolve("t"), { kind: "array" });
  const e = await write(arr, null, { data: Float64Array.of(1, 2, 99, 4), shape: [4], stride: [1] }).then(
    () => assert.fail("wrote 99 as int8 after scaling"),
    (x) => x,
  );
  assert.equal(e.code, "CAST");
  assert.match(e.message, /^array "\/t": chunk c\/0: cast_value: /);
  assert.match(e.message, /element 2: the value given was 99(\.0)?, which the codecs before cast_value made 1090(\.0)?\)/);
  assert.deepEqual([...store.keys()], ["/t/zarr.json"]);
});
