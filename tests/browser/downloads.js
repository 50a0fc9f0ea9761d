// The read scenarios whose downloads tests/node/package/downloads.test.mjs measures, each as an app
// would write it, each three ways: the package's `open` over a FetchStore (`way=open`), or
// `registerCodecs()` and zarrita's `zarr.open` (`way=zarrita`), then the package's `get` (or
// `getDecoded`); or zarrita's `zarr.open` over the FetchStore wrapped by `withWasmCodecs`
// (`way=wrapped`), as zarrita apps read, then zarrita's `zarr.get` (or the package's
// `getDecoded`). Each gives the values it read, in hex, for the test to hold to zarr-python's
// (or xarray's).
import * as zarr from "zarrita";
import { get, getDecoded, open, registerCodecs, withWasmCodecs } from "zarr-wasm-codecs";
import { hex } from "./hex.js";

const SCENARIOS = {
  // The design card's packing (float64 <- uint8: scale_offset, cast_value, bytes, zstd).
  packed: { store: "/tests/node/fixtures/stores/design_2d_zstd.zarr", read: get },
  // xarray's CF packing (int16 with scale_factor, add_offset and _FillValue; bytes, zstd).
  cf: { store: "/tests/fixtures/stores/xr_cf_v3.zarr/t", read: getDecoded },
  // The same, shaped as users write it: whole chunks, the zarr fill value _FillValue.
  cf_whole: { store: "/tests/fixtures/cf/sst.zarr/sst", read: getDecoded },
  // Plain float32 (bytes, zstd), as xarray writes it.
  float32: { store: "/tests/fixtures/dtypes/stores/xr_dataset.v3/tas", read: get },
};

export async function run(name, way) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`no scenario ${name}`);
  const store = new zarr.FetchStore(new URL(scenario.store, location.href).href);
  let arr;
  if (way === "open") {
    arr = await open(store);
  } else if (way === "wrapped") {
    arr = await zarr.open.v3(withWasmCodecs(store), { kind: "array" });
  } else {
    registerCodecs();
    arr = await zarr.open.v3(store, { kind: "array" });
  }
  const chunk = way === "wrapped" && scenario.read === get ? await zarr.get(arr) : await scenario.read(arr);
  return { shape: chunk.shape, hex: hex(chunk.data) };
}
