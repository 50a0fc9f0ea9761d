// The main thread of an app that reads in a worker of its own: starts the worker the way
// bundlers recognise (`new Worker(new URL(..., import.meta.url), { type: "module" })`, which Vite
// and webpack 5 bundle as a worker with their default output formats), posts it the stores'
// base URL and names from the page's query, and puts its answer on `window.__result` (or its
// failure on `window.__error`). With `worker=zarrita` in the query, the worker that reads with
// zarrita alone (own-worker-zarrita.js), whose bundle is the size to compare with.
const params = new URL(location.href).searchParams;
const worker = params.get("worker") === "zarrita"
  ? new Worker(new URL("./own-worker-zarrita.js", import.meta.url), { type: "module" })
  : new Worker(new URL("./own-worker.js", import.meta.url), { type: "module" });

worker.onmessage = ({ data }) => {
  if (data.error !== undefined) window.__error = data.error;
  else window.__result = data.result;
  worker.terminate();
};
worker.onerror = (event) => {
  window.__error = `the worker failed: ${event.message} (${event.filename}:${event.lineno}:${event.colno})`;
};
worker.postMessage({
  base: new URL("/tests/node/fixtures/stores/", location.href).href,
  names: params.get("stores")?.split(",") ?? [],
});
