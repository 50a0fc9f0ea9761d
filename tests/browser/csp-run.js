// The reads of tests/browser/plain.html?csp=...: a packed uint8 array written and read on the main thread, then read
// with a pool of two workers (from `?workerUrl=`, if given). window.__result says what each
// gave: its values' agreement with what was written, or its error's code and message.
import * as zarr from "zarrita";
import { get, set, WorkerPool } from "zarr-wasm-codecs";

export async function run() {
  const params = new URL(location.href).searchParams;
  const result = {};
  const failure = (e) => ({ code: e?.code, name: e?.name, message: String(e?.message ?? e) });
  const data = Float64Array.from({ length: 64 * 64 }, (_, i) => (i % 200) / 10);
  let arr;
  try {
    arr = await zarr.create(zarr.root(new Map()), {
      shape: [64, 64], chunkShape: [16, 16], dtype: "float64", fillValue: 0,
      codecs: [
        { name: "scale_offset", configuration: { offset: 0, scale: 10 } },
        { name: "cast_value", configuration: { data_type: "uint8" } },
        { name: "bytes", configuration: {} },
      ],
    });
    await set(arr, null, { data, shape: [64, 64], stride: [64, 1] });
    const back = await get(arr);
    result.one = { same: back.data.every((v, i) => Object.is(v, data[i])) };
  } catch (e) {
    result.one = failure(e);
  }
  if (result.one.same) {
    const workerUrl = params.get("workerUrl") ?? undefined;
    const pool = new WorkerPool({ size: 2, workerUrl });
    window.__pool = pool;
    try {
      const back = await get(arr, null, { pool });
      result.pool = { same: back.data.every((v, i) => Object.is(v, data[i])) };
    } catch (e) {
      result.pool = failure(e);
    }
  }
  window.__result = result;
}
