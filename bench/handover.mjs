// What handing a read's stored bytes to pool workers costs the main thread, in headless
// Chromium, on the pool benchmark's sizes: 36 chunks of 1.87 MiB (a 3072 x 3072 float64 array
// in 512 x 512 chunks that barely compress). A store that may keep what it returns (any
// in-memory store) gets its bytes copied before they are transferred; a fetch response's
// buffer (zarrita's FetchStore) is transferred as it is. Timed, per read of all 36 chunks:
// - "copy into new buffers": `slice()` of each chunk (what the pool does with no buffer to
//   reuse; fresh memory is written for the first time);
// - "copy into reused buffers": `set` into buffers written before (the pool reuses the
//   buffers the workers give back);
// - "copy and post": `slice()` and postMessage with transfer to a worker that sends each back;
// - "post as it is": postMessage with transfer of fresh buffers (the FetchStore case; their
//   making is not timed).
//
//     node bench/handover.mjs      # 10 s; BENCH_ROUNDS (default 9)
import { chromium } from "playwright-core";

import { median } from "./util.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
try {
  const page = await browser.newPage();
  const times = await page.evaluate(async (rounds) => {
    const n = 36;
    const size = Math.floor(1.87 * 2 ** 20);
    const chunk = () => {
      const a = new Uint8Array(size);
      for (let i = 0; i < size; i += 4096) a[i] = i >> 12;
      return a;
    };
    const chunks = Array.from({ length: n }, chunk);
    const reused = Array.from({ length: n }, chunk);
    const echo = "onmessage = (e) => postMessage(e.data, [e.data.buffer]);";
    const worker = new Worker(URL.createObjectURL(new Blob([echo], { type: "text/javascript" })));
    const back = () => new Promise((resolve) => {
      let left = n;
      worker.onmessage = () => --left || resolve();
    });
    const out = { "copy into new buffers": [], "copy into reused buffers": [], "copy and post": [], "post as it is": [] };
    for (let r = 0; r < rounds; r++) {
      let t = performance.now();
      const copies = chunks.map((c) => c.slice());
      out["copy into new buffers"].push(performance.now() - t);
      if (copies.length !== n) throw new Error("copies");
      t = performance.now();
      for (let i = 0; i < n; i++) reused[i].set(chunks[i]);
      out["copy into reused buffers"].push(performance.now() - t);
      let done = back();
      t = performance.now();
      for (let i = 0; i < n; i++) {
        const c = chunks[i].slice();
        worker.postMessage(c, [c.buffer]);
      }
      out["copy and post"].push(performance.now() - t);
      await done;
      const fresh = Array.from({ length: n }, chunk);
      done = back();
      t = performance.now();
      for (const c of fresh) worker.postMessage(c, [c.buffer]);
      out["post as it is"].push(performance.now() - t);
      await done;
    }
    return out;
  }, rounds);
  console.log(`36 chunks of 1.87 MiB (67.3 MiB), headless Chromium, ${rounds} rounds: main-thread ms per read (median, range)`);
  for (const [what, xs] of Object.entries(times)) {
    console.log(`  ${what.padEnd(26)} ${median(xs).toFixed(1).padStart(6)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`);
  }
} finally {
  await browser.close();
}
