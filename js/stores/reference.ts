// A store over kerchunk references: archives (netCDF4/HDF5, GRIB2) read where they lie. A
// reference set maps every zarr key to inline bytes, or to a range of a file (url, offset,
// length); kerchunk writes them as JSON (version 0, and version 1 with `templates` and `gen`),
// and so does VirtualiZarr (`to_kerchunk(format="json")`). The store knows each key's place, so
// that reads fetch the ranges one file gives a read as few requests as `mergeRanges` allows:
// zarrita's (zarr.get asks for every chunk in one task: the store merges what one task asks) and
// the package's own, which plan a read's runs from `referenceOf` (js/reading/read.ts), and whose
// workers fetch the runs themselves with `workerFetch`.
import { codedError } from "../common/errors.js";
import { type Range } from "./store.js";
import { Coalescer, DEFAULT_MERGE, type MergeLimits, mergeLimitsOf, partOf, type Run } from "./ranges.js";
import { rangeAnswered, streamed } from "./remote.js";

/** A key's reference: inline bytes, or a range of a file (the whole file where `range` is not given). */
export type Reference = { bytes: Uint8Array } | { url: string; range?: Range };

/** Options of `referenceStore`. */
export interface ReferenceOptions {
  /**
   * The function that makes every request (the reference file's and the data's; by default the
   * global fetch), as zarrita's FetchStore takes one: an app's own signs URLs or adds headers. A
   * worker cannot run it: with one, `workerFetch` is refused.
   */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Where references with no URL, or a relative one, point: by default the reference file's own
   * URL (a reference set given as an object: the page's location, where there is one).
   */
  target?: string | URL;
  /** How the ranges of one file that reads ask for together are merged (see `GetOptions.mergeRanges`). */
  mergeRanges?: Partial<MergeLimits>;
}

/** The key under which a reference store answers `referenceOf` (shared by every copy of the package in a page). */
const REFERENCES = Symbol.for("zarr-wasm-codecs.references");

/** What the read path asks of a reference store: where a key's bytes are, and how to fetch a range of a file. */
export interface Referenced {
  /** The key's reference (the store key, as zarrita names it: "/sst/0.0.0"); undefined: no such key (a missing chunk). */
  at(key: string): Reference | undefined;
  /** A range of a file, fetched through the store's fetch and checked (STORE_FAILED naming the URL and the range). */
  fetchRange(url: string, range: Range, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * `fetchRange`, streamed: `onBytes(buffer, filled)` hears the range's bytes as they arrive
   * (`buffer` holds the whole range as it fills; its first `filled` bytes are in), so that the
   * chunks at its start decode while the rest is still on its way.
   */
  streamRange(url: string, range: Range, signal: AbortSignal | undefined, onBytes: (buffer: Uint8Array, filled: number) => void): Promise<Uint8Array>;
  /** Whether the store's requests are made by a fetch of the app's own (which no worker can run). */
  appFetch: boolean;
}

/** The reference store under `store` (zarrita's extensions pass the key through), if it is one. */
export function referencesOf(store: object): Referenced | undefined {
  try {
    return (store as Record<symbol, Referenced | undefined>)[REFERENCES];
  } catch {
    return undefined;
  }
}

/**
 * A zarrita store over a kerchunk reference set: `source`, the URL of its JSON file, or the set
 * itself (the parsed JSON). Version 0 (`{ key: value }`) and version 1 (`{ version: 1, templates,
 * gen, refs }`), as kerchunk and VirtualiZarr write them: a value is a string (inline bytes;
 * `base64:` for binary), `[url]` (a whole file) or `[url, offset, length]`; `{{name}}` in URLs and
 * in `gen` entries is filled from `templates` and each `gen` entry's dimensions. `s3://`,
 * `gs://` and `gcs://` URLs are turned into their HTTPS endpoints, as `@zarrita/storage`'s
 * ReferenceStore does. A malformed set, or a template that does not resolve, is refused
 * (INVALID_METADATA); a reference to a missing file, or a range past its end, is STORE_FAILED
 * naming the URL and the range when it is read.
 */
export async function referenceStore(source: string | URL | object, options: ReferenceOptions = {}): Promise<ReferenceStore> {
  if (typeof options !== "object" || options === null) throw codedError("INVALID_ARGUMENT", "referenceStore: options must be an object");
  if (options.fetch !== undefined && typeof options.fetch !== "function") throw codedError("INVALID_ARGUMENT", "referenceStore: options.fetch must be a function");
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  let spec: unknown = source;
  let base = options.target === undefined ? undefined : String(options.target);
  if (typeof source === "string" || source instanceof URL) {
    const url = cloudUrl(String(source));
    base ??= url;
    let response: Response;
    try {
      response = await fetch(new Request(url));
    } catch (e) {
      throw codedError("STORE_FAILED", `the reference file ${url} could not be fetched: ${e instanceof Error ? e.message : String(e)}`, e);
    }
    if (!response.ok) throw codedError("STORE_FAILED", `the reference file ${url} answered ${response.status} ${response.statusText}`);
    try {
      spec = JSON.parse(await response.text());
    } catch (e) {
      throw codedError("INVALID_METADATA", `the reference file ${url} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  base ??= (globalThis as { location?: { href?: string } }).location?.href;
  return new ReferenceStore(parseReferences(spec, base), fetch, options.fetch !== undefined, mergeLimitsOf(options.mergeRanges));
}

/** A zarrita store over a reference set (see `referenceStore`). */
export class ReferenceStore {
  private readonly refs: Map<string, Reference>;
  private readonly fetchFn: (request: Request) => Promise<Response>;
  private readonly coalescer: Coalescer;
  /** Where each key's bytes are, for the package's reads (see `referencesOf`). */
  readonly [REFERENCES]: Referenced;

  constructor(refs: Map<string, Reference>, fetch: (request: Request) => Promise<Response>, appFetch: boolean, limits: MergeLimits = DEFAULT_MERGE) {
    this.refs = refs;
    this.fetchFn = fetch;
    this.coalescer = new Coalescer(limits);
    this[REFERENCES] = {
      at: (key) => refs.get(key.replace(/^\/+/, "")),
      fetchRange: (url, range, signal) => this.fetchRange(url, range, signal),
      streamRange: (url, range, signal, onBytes) => this.fetchRange(url, range, signal, onBytes),
      appFetch,
    };
  }

  /** The keys of the reference set (as zarr keys, without the leading "/"). */
  keys(): IterableIterator<string> {
    return this.refs.keys();
  }

  /**
   * A key's bytes (undefined where the set has no such key: a missing chunk). The ranges of one
   * file asked for in one task (zarr.get's chunks) go out as merged requests.
   */
  async get(key: string, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined> {
    const ref = this[REFERENCES].at(key);
    if (!ref) return undefined;
    if ("bytes" in ref) return ref.bytes;
    if (!ref.range) return this.fetchWhole(ref.url, options?.signal);
    const range = ref.range;
    return new Promise<Uint8Array>((resolve, reject) => {
      const signal = options?.signal;
      this.coalescer.ask(`${ref.url}\u0000${idOf(signal)}`, { range, resolve, reject }, (runs: Run<{ range: Range; resolve(b: Uint8Array): void; reject(e: unknown): void }>[]) => {
        for (const run of runs) {
          // Each chunk handed back as soon as its bytes are in.
          const items = [...run.items].sort((x, y) => x.range.offset + x.range.length - (y.range.offset + y.range.length));
          let next = 0;
          this.fetchRange(ref.url, run.range, signal, (buffer, filled) => {
            for (; next < items.length && items[next].range.offset + items[next].range.length - run.range.offset <= filled; next++) {
              items[next].resolve(partOf(buffer, run.range, items[next].range));
            }
          }).catch((e) => items.slice(next).forEach((item) => item.reject(e)));
        }
      });
    });
  }

  /** `range` of a key's bytes (zarrita's sharded reads; a suffix too). */
  async getRange(key: string, range: Range | { suffixLength: number }, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined> {
    const ref = this[REFERENCES].at(key);
    if (!ref) return undefined;
    const whole = "bytes" in ref ? ref.bytes : ref.range ? undefined : await this.fetchWhole(ref.url, options?.signal);
    if (whole) return "suffixLength" in range ? whole.subarray(Math.max(0, whole.length - range.suffixLength)) : whole.subarray(range.offset, range.offset + range.length);
    const at = (ref as { url: string; range: Range }).range;
    const [offset, length] = "suffixLength" in range
      ? [at.offset + Math.max(0, at.length - range.suffixLength), Math.min(at.length, range.suffixLength)]
      : [at.offset + range.offset, Math.max(0, Math.min(range.length, at.length - range.offset))];
    return this.fetchRange((ref as { url: string }).url, { offset, length }, options?.signal);
  }

  private async fetchWhole(url: string, signal?: AbortSignal): Promise<Uint8Array> {
    const response = await this.request(url, undefined, signal);
    return new Uint8Array(await response.arrayBuffer());
  }

  private async fetchRange(url: string, range: Range, signal?: AbortSignal, onBytes?: (buffer: Uint8Array, filled: number) => void): Promise<Uint8Array> {
    if (range.length === 0) return new Uint8Array(0);
    const asked = { first: range.offset, last: range.offset + range.length - 1 };
    const response = await this.request(url, range, signal);
    const failed = (why: string) => codedError("STORE_FAILED", `the store failed on ${url} (bytes ${asked.first}-${asked.last}): ${why}`);
    let body: Uint8Array;
    try {
      // A 206 that names the range asked for is read as it arrives; anything else whole, then checked.
      const said = response.headers.get("content-range");
      const exact = response.status === 206 && said !== null && said.trim().startsWith(`bytes ${asked.first}-${asked.last}/`);
      body = onBytes && exact && response.body ? await streamed(response.body, range.length, onBytes, failed) : new Uint8Array(await response.arrayBuffer());
    } catch (e) {
      if (e instanceof Error && (e.name === "AbortError" || (e as { code?: string }).code === "STORE_FAILED")) throw e;
      throw failed(e instanceof Error ? e.message : String(e));
    }
    const bytes = rangeAnswered(asked, response, body, failed);
    onBytes?.(bytes, bytes.length);
    return bytes;
  }

  private async request(url: string, range: Range | undefined, signal?: AbortSignal): Promise<Response> {
    const asked = range && `bytes=${range.offset}-${range.offset + range.length - 1}`;
    const where = `${url}${asked ? ` (${asked.replace("=", " ")})` : ""}`;
    let response: Response;
    try {
      response = await this.fetchFn(new Request(url, { headers: asked ? { Range: asked } : {}, signal }));
    } catch (e) {
      if (e instanceof Error && e.name === "AbortError") throw e;
      throw codedError("STORE_FAILED", `the store failed on ${where}: ${e instanceof Error ? e.message : String(e)}`, e);
    }
    if (response.status === 404) throw codedError("STORE_FAILED", `the store failed on ${where}: a reference to a missing file (404)`);
    if (response.status !== 200 && response.status !== 206) {
      throw codedError("STORE_FAILED", `the store failed on ${where}: Unexpected response status ${response.status} ${response.statusText}`);
    }
    return response;
  }
}

/** Ids of signals, for the coalescer's keys (the ranges of one file asked for with one signal go together). */
const signalIds = new WeakMap<AbortSignal, number>();
let lastSignalId = 0;
function idOf(signal: AbortSignal | undefined): number {
  if (!signal) return 0;
  let id = signalIds.get(signal);
  if (id === undefined) signalIds.set(signal, (id = ++lastSignalId));
  return id;
}

/** The HTTPS endpoint of a cloud URL (`s3://bucket/key`, `gs://`, `gcs://`), as `@zarrita/storage` turns them; any other URL as it is. */
function cloudUrl(url: string): string {
  const m = /^(s3|gs|gcs):\/\/(.*)$/.exec(url);
  if (!m) return url;
  return `https://${m[1] === "s3" ? "s3.amazonaws.com" : "storage.googleapis.com"}/${m[2]}`;
}

/**
 * A reference set's references by key (see `referenceStore`): values decoded (inline strings as
 * UTF-8, `base64:` ones as bytes), templates filled, `gen` entries made, URLs resolved against
 * `base`. INVALID_METADATA for what is not a reference set.
 */
export function parseReferences(spec: unknown, base: string | undefined): Map<string, Reference> {
  const bad = (why: string) => codedError("INVALID_METADATA", `not a kerchunk reference set: ${why}`);
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw bad("it is not a JSON object");
  const set = spec as { version?: unknown; refs?: unknown; templates?: unknown; gen?: unknown };
  const v1 = "version" in set;
  if (v1 && set.version !== 1) throw bad(`version ${JSON.stringify(set.version)} (0, no version, and 1 are read)`);
  const refs = (v1 ? set.refs ?? {} : set) as Record<string, unknown>;
  if (typeof refs !== "object" || refs === null || Array.isArray(refs)) throw bad("`refs` is not an object");
  const templates = (v1 ? set.templates ?? {} : {}) as Record<string, unknown>;
  if (typeof templates !== "object" || templates === null || Array.isArray(templates)) throw bad("`templates` is not an object");
  // `{{ name }}` (a template, or a gen entry's dimension) or `{{ arithmetic }}` over them.
  const fill = (text: string, names: Record<string, unknown>, what: string) =>
    text.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (_, expr: string) => {
      const lookup = (name: string) => {
        const value = name in names ? names[name] : name in templates ? templates[name] : undefined;
        if (typeof value === "string" && value.includes("{{")) throw bad(`${what}: template ${JSON.stringify(name)} names another template`);
        if (typeof value !== "string" && typeof value !== "number") throw bad(`${what}: {{${expr}}} does not resolve (no ${name})`);
        return value;
      };
      if (/^[A-Za-z_]\w*$/.test(expr)) return String(lookup(expr));
      return String(arithmetic(expr, lookup, (why) => bad(`${what}: {{${expr}}} ${why}`)));
    });
  const urlOf = (given: unknown, names: Record<string, unknown>, what: string): string => {
    if (given === null || given === undefined || given === "") {
      if (!base) throw bad(`${what} has no URL and the set has no target`);
      return base;
    }
    if (typeof given !== "string") throw bad(`${what}: its URL is not a string`);
    const url = cloudUrl(fill(given, names, what));
    try {
      return new URL(url, base).href;
    } catch {
      throw bad(`${what}: its URL ${JSON.stringify(url)} is not absolute and the set has no target`);
    }
  };
  const out = new Map<string, Reference>();
  const add = (key: string, value: unknown, names: Record<string, unknown>) => {
    const what = `key ${JSON.stringify(key)}`;
    if (typeof value === "string") {
      const text = METADATA_KEY.test(key) ? pythonJson(value) : value;
      out.set(key, { bytes: value.startsWith("base64:") ? fromBase64(value.slice(7), what, bad) : new TextEncoder().encode(text) });
      return;
    }
    if (!Array.isArray(value) || (value.length !== 1 && value.length !== 3)) throw bad(`${what}: a reference is a string, [url] or [url, offset, length]`);
    const url = urlOf(value[0], names, what);
    if (value.length === 1) return void out.set(key, { url });
    const [offset, length] = [Number(value[1]), Number(value[2])];
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) throw bad(`${what}: offset and length must be integers >= 0`);
    out.set(key, { url, range: { offset, length } });
  };
  for (const [key, value] of Object.entries(refs)) add(key, value, {});
  const gen = v1 ? set.gen ?? [] : [];
  if (!Array.isArray(gen)) throw bad("`gen` is not a list");
  for (const g of gen as { key?: unknown; url?: unknown; offset?: unknown; length?: unknown; dimensions?: unknown }[]) {
    if (typeof g?.key !== "string" || typeof g.url !== "string" || typeof g.dimensions !== "object" || g.dimensions === null) {
      throw bad("a `gen` entry needs key, url and dimensions");
    }
    const dims = Object.entries(g.dimensions as Record<string, unknown>).map(([name, d]) => [name, valuesOf(d, name, bad)] as const);
    for (const names of product(dims)) {
      const key = fill(g.key, names, "a gen key");
      if ("offset" in g || "length" in g) {
        add(key, [g.url, fill(String(g.offset), names, `gen key ${key}`), fill(String(g.length), names, `gen key ${key}`)], names);
      } else {
        add(key, [g.url], names);
      }
    }
  }
  return out;
}

/** The keys of a node's metadata (zarr v2 and v3). */
const METADATA_KEY = /(^|\/)(\.zarray|\.zattrs|\.zgroup|\.zmetadata|zarr\.json)$/;

/**
 * JSON text as Python's json module writes it, made JSON: the bare `NaN`, `Infinity` and
 * `-Infinity` it writes for float attributes (VirtualiZarr's `_FillValue: NaN` of a float
 * coordinate) become the strings zarr's JSON gives those values, `"NaN"`, `"Infinity"` and
 * `"-Infinity"`, which the package's readers and zarrita's JSON.parse take. Strings are left as
 * they are.
 */
export function pythonJson(text: string): string {
  if (!/NaN|Infinity/.test(text)) return text;
  let out = "";
  let at = 0;
  const token = /"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    if (m[0].startsWith('"')) continue;
    out += text.slice(at, m.index) + `"${m[0]}"`;
    at = m.index + m[0].length;
  }
  return out + text.slice(at);
}

/** A `gen` dimension's values: a list, or `{ start, stop, step }`. */
function valuesOf(d: unknown, name: string, bad: (why: string) => Error): number[] {
  if (Array.isArray(d)) return d.map(Number);
  const r = d as { start?: unknown; stop?: unknown; step?: unknown };
  const [start, stop, step] = [Number(r?.start ?? 0), Number(r?.stop), Number(r?.step ?? 1)];
  if (![start, stop, step].every(Number.isSafeInteger) || step <= 0 || stop - start > 1e7) throw bad(`gen dimension ${name}: a list, or { start, stop, step }`);
  const out: number[] = [];
  for (let i = start; i < stop; i += step) out.push(i);
  return out;
}

/** Every combination of the dimensions' values, by name. */
function* product(dims: (readonly [string, number[]])[], at = 0, names: Record<string, number> = {}): Generator<Record<string, number>> {
  if (at === dims.length) return void (yield { ...names });
  const [name, values] = dims[at];
  for (const v of values) yield* product(dims, at + 1, { ...names, [name]: v });
}

function fromBase64(text: string, what: string, bad: (why: string) => Error): Uint8Array {
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    throw bad(`${what}: its base64 value does not decode`);
  }
}

/**
 * The value of an integer expression in a template (`{{ (i + 1) * 1000 }}`, as kerchunk's `gen`
 * entries write them): numbers, names (`lookup`), + - * // % and a / that divides exactly,
 * parentheses. `bad` for anything else.
 */
function arithmetic(text: string, lookup: (name: string) => string | number, bad: (why: string) => Error): number {
  const tokens = text.match(/\s*(\d+|[A-Za-z_]\w*|\/\/|[-+*/%()]|\S)/g)?.map((t) => t.trim()) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const primary = (): number => {
    const t = tokens[at++];
    if (t === undefined) throw bad("ends too soon");
    if (t === "(") {
      const v = sum();
      if (tokens[at++] !== ")") throw bad("misses a )");
      return v;
    }
    if (t === "-") return -primary();
    if (/^\d+$/.test(t)) return Number(t);
    if (/^[A-Za-z_]\w*$/.test(t)) {
      const v = Number(lookup(t));
      if (!Number.isSafeInteger(v)) throw bad(`: ${t} is not an integer`);
      return v;
    }
    throw bad(`does not parse at ${JSON.stringify(t)}`);
  };
  const product = (): number => {
    let v = primary();
    while (["*", "/", "//", "%"].includes(peek())) {
      const op = tokens[at++];
      const w = primary();
      if (op !== "*" && w === 0) throw bad("divides by zero");
      if (op === "/" && v % w !== 0) throw bad("is not an integer");
      v = op === "*" ? v * w : op === "%" ? ((v % w) + w) % w : Math.floor(v / w);
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (peek() === "+" || peek() === "-") v = tokens[at++] === "+" ? v + product() : v - product();
    return v;
  };
  const value = sum();
  if (at !== tokens.length) throw bad(`does not parse at ${JSON.stringify(tokens[at])}`);
  if (!Number.isSafeInteger(value)) throw bad("is not an integer");
  return value;
}

