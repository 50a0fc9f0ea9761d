// 100,000 encode and decode calls, valid and invalid mixed, through the wasm boundary: the
// module's memory is no larger at the end than after the first 1,000 calls (nothing leaks on
// the error paths), and every invalid call throws an Error with a code.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createChain, loadWasm } from "zarr-wasm-codecs";
import init from "../../../dist/wasm/zarr_wasm_codecs.js";

const DESIGN = {
  data_type: "float64", fill_value: "NaN", chunk_shape: [8, 8],
  codecs: [
    { name: "scale_offset", configuration: { offset: -10, scale: 10 } },
    { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp",
      scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
    { name: "bytes" },
  ],
};
// No NaN mapping and no clamp: NaN and out-of-range values fail to encode.
const STRICT = {
  data_type: "float32", fill_value: 0, chunk_shape: [64],
  codecs: [{ name: "cast_value", configuration: { data_type: "int16" } }, { name: "bytes", configuration: { endian: "big" } }],
};

test("100,000 mixed calls leave the wasm memory as it was after 1,000; every failure is an Error with a code", async () => {
  await loadWasm();
  const { memory } = await init(); // the instance already started: its exports
  const design = await createChain(DESIGN);
  const strict = await createChain(STRICT);

  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const bytes = new Uint8Array(64);
  const floats = new Float64Array(64);
  const singles = new Float32Array(64);
  const codes = new Map();
  let failures = 0;
  const expectError = (fn) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof Error, String(e));
      assert.equal(typeof e.code, "string", e.message);
      codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
      failures++;
      return;
    }
    assert.fail("expected an error");
  };

  const call = (i) => {
    switch (i % 8) {
      case 0:
        bytes.forEach((_, k) => (bytes[k] = random() * 256));
        assert.equal(design.decode(bytes).length, 64);
        break;
      case 1:
        expectError(() => design.decode(bytes.subarray(0, 1 + (i % 63)))); // wrong length
        break;
      case 2:
        floats.forEach((_, k) => (floats[k] = random() < 0.1 ? NaN : random() * 30 - 10));
        assert.equal(design.encode(floats).length, 64);
        break;
      case 3:
        expectError(() => design.encode(singles)); // wrong array type
        break;
      case 4:
        singles.forEach((_, k) => (singles[k] = random() * 60000 - 30000));
        assert.equal(strict.encode(singles).length, 128);
        break;
      case 5:
        singles[i % 64] = i % 16 === 5 ? NaN : 1e9; // not representable, no mapping
        expectError(() => strict.encode(singles));
        break;
      case 6:
        assert.equal(strict.decode(new Uint8Array(128)).length, 64);
        break;
      default:
        expectError(() => strict.decode(new Uint8Array(127)));
    }
  };

  for (let i = 0; i < 1000; i++) call(i);
  const after1k = memory.buffer.byteLength;
  for (let i = 1000; i < 100_000; i++) call(i);
  const after100k = memory.buffer.byteLength;
  assert.equal(after100k, after1k, `memory grew from ${after1k} to ${after100k} bytes`);
  assert.equal(failures, 50_000);
  assert.deepEqual([...codes.keys()].sort(), ["CAST", "CHUNK_LENGTH", "WRONG_ARRAY_TYPE"]);
  design.free();
  strict.free();
});
