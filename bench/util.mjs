// Helpers the read benchmarks share: the design card's field, a seeded shuffle (each round
// runs the reads in a new order, repeatable from run to run), the median, and rounds taken in
// turns with a native decoder.

/** A function that returns `xs` shuffled, from a seeded generator (mulberry32). */
export function seededShuffle(seed) {
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return (xs) => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * The design card's field on an n x n grid: smooth, in [-9.9, 15.4], with noise and a disc of
 * NaN (its place and size scale with n); not tuned to any codec.
 */
export function designField(n) {
  const data = new Float64Array(n * n);
  const [ci, cj, r] = [(n * 75) / 128, (n * 175) / 512, (n * 75) / 512];
  let seed = 1;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const v = 2.75 + 12 * Math.sin(i / 97) * Math.cos(j / 131) + (seed / 2 ** 32 - 0.5) * 0.5;
      data[i * n + j] = (i - ci) ** 2 + (j - cj) ** 2 < r ** 2 ? NaN : v;
    }
  }
  return data;
}

/**
 * Times each of `reads` (named async functions) `rounds` times, in a new `shuffled` order each
 * round, after 3 untimed rounds (JIT, wasm memory growth, the first touches of memory): the
 * times in ms, by name.
 */
export async function timeRounds(reads, rounds, shuffled) {
  const runs = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
  for (let r = 0; r < 3; r++) for (const k of Object.keys(reads)) await reads[k]();
  for (let r = 0; r < rounds; r++) {
    for (const k of shuffled(Object.keys(reads))) {
      const t0 = performance.now();
      await reads[k]();
      runs[k].push(performance.now() - t0);
    }
  }
  return runs;
}

/**
 * `total` rounds in blocks of `block`, taking turns with a native decoder in a process of its
 * own, so that both sides are timed in the same stretch of the machine's time: before each
 * block, `native(rounds)` times the native side (once it throws, it is not called again);
 * then every field's reads (`field.reads`: name -> async function) run `rounds` times,
 * interleaved, each time pushed to `field.times[name]`. Returns "run", or why the native side
 * was not.
 */
export async function inTurns(total, block, native, fields) {
  let state = "run";
  for (let done = 0; done < total; done += block) {
    const rounds = Math.min(block, total - done);
    if (state === "run") {
      try {
        native(rounds);
      } catch (e) {
        state = `not run: ${String(e.message).split("\n")[0]}`;
      }
    }
    for (const f of fields) {
      for (let r = 0; r < rounds; r++) {
        // Interleaved, so that every read sees the same state of the machine.
        for (const [read, run] of Object.entries(f.reads)) {
          const t0 = performance.now();
          await run();
          f.times[read].push(performance.now() - t0);
        }
      }
    }
  }
  return state;
}

/** Whether two typed arrays hold the same bytes. */
export function sameBits(a, b) {
  const bitsOf = (v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  const [x, y] = [bitsOf(a), bitsOf(b)];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

