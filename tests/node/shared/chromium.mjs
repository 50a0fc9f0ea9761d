// A helper the browser tests share (not a test file itself): headless Chromium as the tests run
// it (CHROMIUM, default Debian's /usr/bin/chromium), with no background networking, which a
// closed network would refuse (and with WebGPU, for the GPU tests); and an app with the packed package installed, served with the
// repository (its stores) on loopback, for such a browser to open.
import { join } from "node:path";

import { chromium } from "playwright-core";

import { serve } from "../../../scripts/serve.mjs";
import { installApp, pack, root } from "./pack.mjs";

export function launchChromium({ webgpu = false } = {}) {
  // WebGL2 runs on SwiftShader either way; WebGPU's (SwiftShader) adapter needs the GPU process
  // and the flag that offers WebGPU where Chromium does not by default (Linux).
  const gpu = webgpu ? ["--enable-unsafe-webgpu"] : ["--disable-gpu"];
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", ...gpu, "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/**
 * The package packed into `packDir` and installed into the app `app` with the test pages `pages`
 * (files of tests/browser/); the repository served (`base`, its URL) and Chromium started.
 * `close()` ends both.
 */
export async function appInBrowser(packDir, app, pages) {
  installApp(app, pack(packDir), pages.map((f) => join(root, "tests/browser", f)));
  const server = await serve(root);
  const browser = await launchChromium();
  return {
    browser,
    base: `http://127.0.0.1:${server.address().port}`,
    async close() {
      await browser.close();
      server.close();
    },
  };
}
