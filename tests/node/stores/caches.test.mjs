// Caches that never lie (shard indexes kept between reads). zarr-python 3.4.2's sharded stores
// (tests/fixtures/caches: uncompressed, zstd, a crc32c index at the start, shards nested three
// deep), read once through one array object, written through another (or the same) of the same
// store object (opened by the package's open or over withWasmCodecs, one thread or pooled, the
// whole array or part of it), then read again through the first: every value as zarr-python
// read it after making the same write. A server that rewrites a shard between two reads (more
// of that in store-changes.test.mjs): its validators tell the reads; `shardIndexBytes: 0` keeps
// no index between reads.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { get, getDecoded, open, set, validatingFetch, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";

const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/caches/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const before = Int32Array.from({ length: 64 }, (_, i) => i + 1000);
const expectedOf = (chain, write) => {
  const b = readFileSync(join(dir, `${chain}.${write}.bin`));
  return new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};
const temps = [];
const fsRoots = new WeakMap();
after(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** A fresh copy of a chain's store, as a FileSystemStore. */
function storeOf(chain) {
  const root = mkdtempSync(join(tmpdir(), "zwc-caches-"));
  temps.push(root);
  cpSync(join(dir, manifest.chains[chain].store), join(root, "a.zarr"), { recursive: true });
  const s = new FileSystemStore(join(root, "a.zarr"));
  fsRoots.set(s, join(root, "a.zarr"));
  return s;
}

/** The values of each write of the manifest, as the test makes them (those zarr-python made). */
function valuesOf(write) {
  const { rows, cols } = manifest.writes[write];
  const n = (rows[1] - rows[0]) * (cols[1] - cols[0]);
  const data = Int32Array.from({ length: n }, (_, i) => (write === "whole" ? -i : 2000 + i));
  return { selection: [zarr.slice(...rows), zarr.slice(...cols)], value: { data, shape: [rows[1] - rows[0], cols[1] - cols[0]], stride: [cols[1] - cols[0], 1] } };
}

// How the reading array is opened and read, and how the writing one is opened.
const openers = {
  open: async (s) => open(s),
  wrapped: async (s, o) => zarr.open.v3(zarr.root(withWasmCodecs(s, o)), { kind: "array" }),
};
const readOf = (how, pooled) => (how === "wrapped" ? (a) => zarr.get(a) : (a) => get(a, null, pooled ? { pool } : {}));

test("a write through any array object of the same store drops the shard indexes kept: every read after it sees it", async () => {
  let cases = 0;
  for (const chain of Object.keys(manifest.chains)) {
    for (const [reader, writer] of [["open", "open"], ["wrapped", "open"], ["open", "wrapped"], ["wrapped", "wrapped"], ["wrapped", "itself"], ["open", "itself"]]) {
      for (const pooled of [false, true]) {
        for (const write of Object.keys(manifest.writes)) {
          const label = `${chain}, read through ${reader}, written through ${writer}${pooled ? ", pooled" : ""}, ${write}`;
          const s = storeOf(chain);
          const o = pooled ? { pool } : {};
          const a = await openers[reader](s, o);
          const read = readOf(reader, pooled);
          assert.deepEqual((await read(a)).data, before, label);
          const b = writer === "itself" ? a : await openers[writer](s, o);
          const { selection, value } = valuesOf(write);
          // The read is called right after the write, not after it ends: it waits its turn.
          const written = set(b, selection, value, pooled ? { pool } : {});
          const got = await read(a);
          await written;
          const want = expectedOf(chain, write);
          assert.deepEqual(got.data, want, `${label}: the read called after the write`);
          assert.deepEqual((await read(a)).data, want, `${label}: a later read`);
          // A fresh array object reads the same.
          assert.deepEqual((await get(await open(s))).data, want, `${label}: a fresh array`);
          cases++;
        }
      }
    }
  }
  assert.equal(cases, 4 * 6 * 2 * 2);
});

/**
 * A static server of `root` (Range, suffix ranges, ETag and Last-Modified of each file's
 * content and write, or neither with `validators: false`), counting requests by path.
 */
async function serve(root, { validators = true } = {}) {
  const { createServer } = await import("node:http");
  const { createHash } = await import("node:crypto");
  const { statSync } = await import("node:fs");
  const log = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    log.push(`${req.method} ${path} ${req.headers.range ?? ""}`.trim());
    let body;
    try {
      body = readFileSync(join(root, path));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const headers = { "Accept-Ranges": "bytes" };
    if (validators) {
      headers.ETag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
      headers["Last-Modified"] = statSync(join(root, path)).mtime.toUTCString();
    }
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!m) {
      res.writeHead(200, { ...headers, "Content-Length": body.length }).end(req.method === "HEAD" ? undefined : body);
      return;
    }
    const [start, end] = m[1] === "" ? [Math.max(0, body.length - Number(m[2])), body.length - 1] : [Number(m[1]), m[2] === "" ? body.length - 1 : Math.min(Number(m[2]), body.length - 1)];
    const part = body.subarray(start, end + 1);
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${body.length}`, "Content-Length": part.length }).end(part);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/`, log, close: () => new Promise((r) => server.close(r)) };
}

test("a shard rewritten on the server between two reads, read with workerFetch: each whole read one request for the shard, its values the new ones", async () => {
  for (const chain of ["zstd", "nested", "crc32c_index"]) {
    for (const write of Object.keys(manifest.writes)) {
      const label = `${chain}, ${write}`;
      const fs = storeOf(chain);
      const server = await serve(fsRoot(fs));
      try {
        const a = await open(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
        const options = { pool, workerFetch: true };
        const shardReads = () => server.log.filter((l) => l.startsWith("GET /c/0/0")).length;
        assert.deepEqual((await get(a, null, options)).data, before, label);
        // A read of the whole array reads its one shard whole: one request (nested shards read
        // their inner indexes by range).
        if (chain !== "nested") assert.equal(shardReads(), 1, `${label}: one request for the shard`);
        // Someone else (another store object over the same files: nothing of this process's
        // cache is told) rewrites the shard.
        const { selection, value } = valuesOf(write);
        await set(await open(new FileSystemStore(fsRoot(fs))), selection, value);
        const n = shardReads();
        assert.deepEqual((await get(a, null, options)).data, expectedOf(chain, write), `${label}: the read after the rewrite`);
        if (chain !== "nested") assert.equal(shardReads() - n, 1, `${label}: one request for the shard`);
        assert.deepEqual((await get(a, null, options)).data, expectedOf(chain, write), `${label}: a later read`);
      } finally {
        await server.close();
      }
    }
  }
});

test("a shard rewritten on the server between two reads, on this thread through zarrita's FetchStore with validatingFetch(): its index read again, once", async () => {
  const readers = {
    "get": async (s) => { const a = await open(s); return () => get(a); },
    "get pooled": async (s) => { const a = await open(s); return () => get(a, null, { pool }); },
    "getDecoded": async (s) => { const a = await open(s); return async () => ({ data: Int32Array.from((await getDecoded(a)).data) }); },
    "zarr.get over withWasmCodecs": async (s) => { const a = await zarr.open.v3(zarr.root(withWasmCodecs(s)), { kind: "array" }); return () => zarr.get(a); },
  };
  for (const chain of ["zstd", "nested", "crc32c_index"]) {
    for (const [how, reader] of Object.entries(readers)) {
      for (const write of Object.keys(manifest.writes)) {
        const label = `${chain}, ${how}, ${write}`;
        const fs = storeOf(chain);
        const server = await serve(fsRoot(fs));
        try {
          const read = await reader(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
          assert.deepEqual((await read()).data, before, label);
          const { selection, value } = valuesOf(write);
          await set(await open(new FileSystemStore(fsRoot(fs))), selection, value);
          assert.deepEqual((await read()).data, expectedOf(chain, write), `${label}: the read after the rewrite`);
          assert.deepEqual((await read()).data, expectedOf(chain, write), `${label}: a later read`);
        } finally {
          await server.close();
        }
      }
    }
  }
});

test("shardIndexBytes: 0 keeps no index between reads: a shard rewritten on a server that gives no validators is read right", async () => {
  const off = { shardIndexBytes: 0 };
  const readers = {
    "get": async (s) => { const a = await open(s); return () => get(a, null, off); },
    "get pooled": async (s) => { const a = await open(s); return () => get(a, null, { ...off, pool }); },
    "zarr.get over withWasmCodecs": async (s) => { const a = await zarr.open.v3(zarr.root(withWasmCodecs(s, off)), { kind: "array" }); return () => zarr.get(a); },
  };
  for (const validators of [false, true]) {
    for (const [how, reader] of Object.entries(readers)) {
      const label = `${validators ? "validators" : "no validators"}, ${how}`;
      const fs = storeOf("zstd");
      const server = await serve(fsRoot(fs), { validators });
      try {
        // One array object for both reads.
        const read = await reader(new zarr.FetchStore(server.url));
        assert.deepEqual((await read()).data, before, label);
        const { selection, value } = valuesOf("partial");
        await set(await open(new FileSystemStore(fsRoot(fs))), selection, value);
        assert.deepEqual((await read()).data, expectedOf("zstd", "partial"), `${label}: the read after the rewrite`);
      } finally {
        await server.close();
      }
    }
  }
});

/** The directory of a FileSystemStore made by `storeOf`. */
function fsRoot(fs) {
  return fsRoots.get(fs);
}
