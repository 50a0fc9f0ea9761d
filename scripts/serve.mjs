// A static file server on loopback for the demo and the browser tests: 404 for what is not
// there (zarr reads a missing chunk as the fill value), byte ranges (`bytes=a-b`, `bytes=-n`),
// which zarrita's FetchStore uses to read shard indexes, and cross-origin isolation headers
// for a page whose query has `isolate`. For the HTTP benchmark: `delay` holds every answer back
// that many milliseconds, as a distant server or a CDN would, and `tls` ({ key, cert }) serves
// HTTP/2 over TLS (with HTTP/1.1 for clients that do not offer h2), as CDNs do, so a browser
// multiplexes its requests over one connection instead of opening six.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { createSecureServer } from "node:http2";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".png": "image/png",
  ".wasm": "application/wasm",
  ".md": "text/plain; charset=utf-8",
  ".py": "text/plain; charset=utf-8",
};

/**
 * Serves `dir` on 127.0.0.1 (`port` 0: any free port), each answer `delay` ms late, over
 * HTTP/2 with TLS when given `tls`. Resolves to the listening server.
 */
export function serve(dir, port = 0, { delay = 0, tls } = {}) {
  const root = normalize(dir.endsWith(sep) ? dir : dir + sep);
  const handle = (req, res) => (delay > 0 ? setTimeout(answer, delay, req, res) : answer(req, res));
  const server = tls ? createSecureServer({ ...tls, allowHTTP1: true }, handle) : createServer(handle);
  function answer(req, res) {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://localhost").pathname));
    let file = join(root, path);
    if (file.startsWith(root) && existsSync(file) && statSync(file).isDirectory()) {
      file = join(file, "index.html");
    }
    if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    const size = statSync(file).size;
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    // A page asked for with `isolate` in its query is served cross-origin isolated (what
    // SharedArrayBuffer needs); everything it loads is same-origin. Worker scripts carry the
    // embedder policy too, without which an isolated page may not start them.
    const isolate = new URL(req.url, "http://localhost").searchParams.has("isolate");
    if (isolate) res.setHeader("cross-origin-opener-policy", "same-origin");
    if (isolate || req.headers["sec-fetch-dest"] === "worker") {
      res.setHeader("cross-origin-embedder-policy", "require-corp");
    }
    // A page asked for with `csp=<policy>` is served with that Content-Security-Policy.
    const csp = new URL(req.url, "http://localhost").searchParams.get("csp");
    if (csp && type.startsWith("text/html")) res.setHeader("content-security-policy", csp);
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!range) {
      res.writeHead(200, { "content-type": type, "content-length": size, "cache-control": "no-store" });
      createReadStream(file).pipe(res);
      return;
    }
    const [start, end] =
      range[1] === ""
        ? [Math.max(0, size - Number(range[2])), size - 1]
        : [Number(range[1]), range[2] === "" ? size - 1 : Math.min(Number(range[2]), size - 1)];
    if (start > end) {
      res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, {
      "content-type": type,
      "cache-control": "no-store",
      "content-length": end - start + 1,
      "content-range": `bytes ${start}-${end}/${size}`,
    });
    createReadStream(file, { start, end }).pipe(res);
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
