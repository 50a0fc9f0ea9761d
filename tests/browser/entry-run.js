// What the test pages run (plain.html and the bundler tests' entries): reads the stores named
// in the page's query, on one thread or (`pool`) with a worker pool, or writes them (`write`), or
// (`zfp`) reads zfpy's streams, which load the zfp module, or (`compressed`) reads
// tests/fixtures/stores, zarr-python's compressed and v2 stores, or (`written`) writes the cases
// of tests/fixtures/written, on one thread and pooled, or (`dtypes`) reads tests/fixtures/dtypes,
// zarr-python's and xarray's stores of every data type, or (`extensions`) zarrs' reshape and
// rectilinear stores.
import { readCompressedStores, readDataTypeStores, readExtensionStores, readStores, readStoresWithPool, readZfpCases, writeStores, writeVerifiedCases } from "./read.js";

export function start() {
  const params = new URL(location.href).searchParams;
  const names = params.get("stores")?.split(",");
  const run = params.has("zfp") ? readZfpCases()
    : params.has("compressed") ? readCompressedStores()
    : params.has("extensions") ? readExtensionStores()
    : params.has("dtypes") ? readDataTypeStores()
    : params.has("written") ? writeVerifiedCases()
    : params.has("write") ? writeStores(names)
    : params.has("pool") ? readStoresWithPool(names) : readStores(names);
  run.then(
    (r) => { window.__result = r; },
    (e) => { window.__error = [e, e.cause].filter(Boolean).map((x) => `${x.code ? `${x.code}: ` : ""}${x}`).join(" <- "); },
  );
}
