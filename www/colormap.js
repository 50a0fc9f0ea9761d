// A perceptual colour map built here from OKLCH: lightness rises linearly from dark violet to
// pale yellow while the hue turns through blue and green, so equal steps in value look like
// equal steps in colour and the map reads in greyscale too. 256 entries.

/** OKLab -> linear sRGB -> sRGB bytes (Björn Ottosson's OKLab matrices). */
function oklabToSrgb(L, a, b) {
  const l_ = L + 0.3963377774 * a + 0.2158037573 * b;
  const m_ = L - 0.1055613458 * a - 0.0638541728 * b;
  const s_ = L - 0.0894841775 * a - 1.291485548 * b;
  const l = l_ ** 3;
  const m = m_ ** 3;
  const s = s_ ** 3;
  const linear = [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
  return linear.map((c) => {
    const x = Math.min(1, Math.max(0, c));
    const srgb = x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055;
    return Math.round(srgb * 255);
  });
}

function build() {
  const table = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = i / 255;
    const L = 0.27 + 0.66 * t;
    const C = 0.11 + 0.06 * Math.sin(Math.PI * t);
    const h = ((300 - 200 * t) * Math.PI) / 180;
    const rgb = oklabToSrgb(L, C * Math.cos(h), C * Math.sin(h));
    table.set(rgb, i * 3);
  }
  return table;
}

/**
 * A diverging map for anomalies: blue through near-white (at the scale's middle) to red, with
 * lightness symmetric about the middle so that equal departures look equally strong.
 */
function buildDiverging() {
  const table = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * 2 - 1; // -1 .. 1
    const L = 0.97 - 0.52 * Math.abs(t);
    const C = 0.16 * Math.abs(t);
    const h = ((t < 0 ? 255 : 30) * Math.PI) / 180;
    table.set(oklabToSrgb(L, C * Math.cos(h), C * Math.sin(h)), i * 3);
  }
  return table;
}

/** 256 RGB triples, darkest first. */
export const COLORMAP = build();
/** 256 RGB triples, blue (low) to red (high). */
export const DIVERGING = buildDiverging();
export const COLORMAPS = { sequential: COLORMAP, diverging: DIVERGING };

/** The table index for `value` on the scale [lo, hi] (clamped); -1 for NaN. */
export function colorIndex(value, lo, hi) {
  if (Number.isNaN(value)) return -1;
  const t = (value - lo) / (hi - lo);
  return Math.min(255, Math.max(0, Math.round(t * 255)));
}

/** [r, g, b, a] for `value` on [lo, hi] in `table`; NaN is fully transparent. */
export function colorOf(value, lo, hi, table = COLORMAP) {
  const i = colorIndex(value, lo, hi);
  if (i < 0) return [0, 0, 0, 0];
  return [table[i * 3], table[i * 3 + 1], table[i * 3 + 2], 255];
}
