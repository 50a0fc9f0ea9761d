// Time to the first drawn frame of a packed field in headless Chromium (WebGL2), the package's
// stored route (getStored + gpuDecoder's shader) against get + Float32Array + an R32F upload:
// the demo's int16 and uint8 fields and a 4096 x 4096 field written by the package (uint8 and
// int16, zstd or not), chunks in memory. BENCH_ROUNDS rounds (default 15), medians with
// quartiles; `--json` prints the figures as JSON. See bench/browser/gpu-bench.js.
import { serve } from "../scripts/serve.mjs";
import { launchChromium } from "../tests/node/shared/chromium.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const root = new URL("../", import.meta.url).pathname;
const server = await serve(root);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/browser/gpu.html`);
  await page.waitForFunction(() => window.gpuBench);
  const out = await page.evaluate((rounds) => window.gpuBench({ rounds }), rounds);
  if (process.argv.includes("--json")) console.log(JSON.stringify(out, null, 1));
  else {
    console.log(`${out.renderer}; ${out.rounds} rounds, medians (quartiles), ms from the read's call to the first drawn frame`);
    const ms = (s) => `${s.median.toFixed(1)} (${s.q1.toFixed(1)}-${s.q3.toFixed(1)})`;
    console.log(`a frame with nothing uploaded (draw, one pixel read back): ${out.emptyFrameMs.toFixed(2)} ms`);
    for (const r of out.results) {
      console.log(`${r.field}: stored ${ms(r.stored)}, float32 ${ms(r.float32)}, ${r.ratio.toFixed(2)}x; ` +
        `uploaded ${r.uploaded.stored} + table ${r.tableBytes} vs ${r.uploaded.float32} bytes; decoder and program once ${r.oneTimeMs.toFixed(1)} ms`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
