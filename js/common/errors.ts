// The package's errors: JavaScript Errors with a stable `code`, from the wasm (the Rust error's
// code) or raised here, and a way to find that code in what zarrita throws.

/** Every code the package's errors carry. */
export const ERROR_CODES = [
  // From the wasm (src/error.rs).
  "UNKNOWN_DATA_TYPE",
  "UNSUPPORTED_DATA_TYPE",
  "UNKNOWN_CODEC",
  "INVALID_CONFIG",
  "INVALID_SCALAR",
  "INVALID_METADATA",
  "CAST",
  "OVERFLOW",
  "INEXACT_DIVISION",
  "CHUNK_LENGTH",
  "WRONG_ARRAY_TYPE",
  "INEXACT_NUMBER",
  "CORRUPT_CHUNK",
  "CHECKSUM",
  "NON_FINITE",
  "UNSUPPORTED_CALENDAR",
  // From the JavaScript side: set's checks and the worker pool.
  "SHAPE_MISMATCH",
  "INVALID_STRIDE",
  "NO_SHARED_MEMORY",
  "WORKER_LOST",
  "WORKER_START_FAILED",
  "WASM_FORBIDDEN",
  "WASM_UNAVAILABLE",
  "POOL_TERMINATED",
  "INVALID_ARGUMENT",
  "INVALID_SELECTION",
  "TOO_LARGE",
  // A chain a shader cannot decode (gpuDecoder).
  "NOT_ON_GPU",
  // A store's own failure (a network error, a refused request), with the store's error as cause.
  "STORE_FAILED",
  // A shard that changed on the server while a read used its index (told by its ETag or
  // Last-Modified), once more after its index was read again.
  "STORE_CHANGED",
  // A failure no check foresaw (a bug, or a caller's callback throwing), the original as cause.
  "INTERNAL",
  // zarrita's errors, given a code where they leave this package (see `naming`).
  "NOT_FOUND",
  "CODEC_FAILED",
  "UNSUPPORTED",
] as const;

/** A code of the package's errors. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error this package raised: an Error with one of its codes. */
export interface CodecError extends Error {
  code: ErrorCode;
  /** The path of the array being read or written (`"/sst"`), where there is one. */
  path?: string;
  /**
   * The store key of the chunk or shard involved (`"c/0/1"`; an inner chunk of a shard as
   * `"c/0/1 (inner chunk 3)"`), where one is: the key a store failed on, for `STORE_FAILED`.
   */
  key?: string;
  /** The codec that failed or refused (`"zstd"`, `"cast_value"`, `"numcodecs.pcodec"`), where one did. */
  codec?: string;
}

const known = new Set<string>(ERROR_CODES);

/** Whether `e` is an error this package raised (not one that wraps it). */
export function isCodecError(e: unknown): e is CodecError {
  return e instanceof Error && known.has((e as { code?: unknown }).code as string);
}

/**
 * The package's error code in `e` or in the errors it wraps (`cause` after `cause`): zarrita
 * reports a failed codec as its own CodecPipelineError, with the package's error as its cause.
 * An error that carries no code but whose message starts with one in brackets, `[CHUNK_LENGTH]
 * ...` (the form in which the fizarrita worker entry's errors reach the page: see
 * `codeInMessage`), has that code. `undefined` when there is none.
 */
export function errorCode(e: unknown): ErrorCode | undefined {
  for (let at = e, depth = 0; at !== undefined && at !== null && depth < 16; depth++) {
    if (isCodecError(at)) return at.code;
    const written = at instanceof Error ? CODE_IN_MESSAGE.exec(at.message)?.[1] : undefined;
    if (written !== undefined && known.has(written)) return written as ErrorCode;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A code written at the start of a message (see `codeInMessage`). */
const CODE_IN_MESSAGE = /^\[([A-Z_]+)\] /;

/**
 * `e` with the code of the package's error it is or wraps written at the start of its message,
 * `[CODE] message` (a coded error with the original as `cause`, its fields kept), for where an
 * error's message alone travels: fizarrita's workers hand the page a new Error with the message
 * only. `e` itself where it carries no code, or its message starts with it already.
 */
export function codeInMessage(e: unknown): unknown {
  const inner = codedWithin(e);
  if (!inner || !(e instanceof Error) || e.message.startsWith(`[${inner.code}] `)) return e;
  return withFields(codedError(inner.code, `[${inner.code}] ${e.message}`, e), inner);
}

/** The package's error that `e` is or wraps (`cause` after `cause`), if any. */
function codedWithin(e: unknown): CodecError | undefined {
  for (let at = e, depth = 0; at !== undefined && at !== null && depth < 16; depth++) {
    if (isCodecError(at)) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The codes zarrita's errors (by their `_tag`) get where they leave this package. */
const ZARRITA_CODES: Record<string, ErrorCode> = {
  NotFoundError: "NOT_FOUND",
  InvalidMetadataError: "INVALID_METADATA",
  UnknownCodecError: "UNKNOWN_CODEC",
  CodecPipelineError: "CODEC_FAILED",
  InvalidSelectionError: "INVALID_SELECTION",
  UnsupportedError: "UNSUPPORTED",
};

/**
 * Runs `work` for the array at `path`; an error it throws leaves with a code on the error
 * itself and the array named in its message. The package's own errors keep everything but
 * the message. An error that wraps one of them (zarrita's CodecPipelineError around a
 * codec's) becomes an error with that code, its message and the original as `cause`; so does
 * one of zarrita's own (by its kind: NOT_FOUND, INVALID_METADATA, UNKNOWN_CODEC,
 * CODEC_FAILED, INVALID_SELECTION, UNSUPPORTED). An abort (AbortError) leaves as it is
 * (and `signal`'s own reason: the caller's); anything else, a failure no check foresaw, leaves as INTERNAL
 * with the original as `cause`. (A store's failures are coded where the store is called:
 * `fromStore`.)
 */
export async function naming<T>(path: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    throw named(path, e);
  }
}

/** What `naming` throws for `e`, thrown by work on the array at `path` (without a signal). */
export function named(path: string, e: unknown): never {
  const prefix = `array "${path}": `;
  if (isCodecError(e)) {
    if (!e.message.startsWith(prefix)) e.message = prefix + e.message;
    throw withFields(e, { path });
  }
  if (!(e instanceof Error) || e.name === "AbortError") throw e;
  const inner = codedWithin(e);
  const code = inner?.code ?? ZARRITA_CODES[(e as { _tag?: string })._tag ?? ""];
  if (!code) throw withFields(codedError("INTERNAL", prefix + e.message, e), { path });
  const message = inner ? `${e.message}: ${inner.message}` : e.message;
  throw withFields(codedError(code, message.startsWith(prefix) ? message : prefix + message, e), { path, key: inner?.key, codec: inner?.codec });
}

/**
 * Runs `work` for the chunk (or shard) at store key `key`; an error of the package's that it
 * throws names the key in its message (its code and everything else unchanged).
 */
export async function namingChunk<T>(key: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw nameChunk(key, e);
  }
}

/** `e`, where it is an error of the package's, with the chunk at `key` named (see `namingChunk`). */
export function nameChunk(key: string, e: unknown): unknown {
  const prefix = `chunk ${key}: `;
  if (isCodecError(e)) {
    if (!e.message.startsWith(prefix)) e.message = prefix + e.message;
    withFields(e, { key });
  }
  return e;
}

/**
 * Runs a store's request for `key` (or for `range` of it): an error it throws (other than an
 * abort) becomes STORE_FAILED, naming the key (and the range), with the store's error as `cause`;
 * one of the package's own (a `validatingFetch` refusal, say) keeps its code and gains the key.
 */
export async function fromStore<T>(key: string, request: () => T | Promise<T>, range?: { offset: number; length: number }): Promise<T> {
  try {
    return await request();
  } catch (e) {
    if (isCodecError(e)) throw withFields(e, { key });
    if (e instanceof Error && e.name === "AbortError") throw e;
    const said = e instanceof Error ? e.message : String(e);
    const what = range ? `${key} (bytes ${range.offset}-${range.offset + range.length - 1})` : key;
    throw withFields(codedError("STORE_FAILED", `the store failed on ${what}: ${said}`, e), { key });
  }
}

/**
 * Runs another codec's (a zarrita registry entry's) `direction` on a chunk: an error it throws
 * that carries none of the package's codes becomes CODEC_FAILED, naming the codec, with the
 * codec's error as `cause`.
 */
export async function viaCodec<T>(name: string, direction: "encode" | "decode", work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (codedWithin(e) || (e instanceof Error && e.name === "AbortError")) throw e;
    const said = e instanceof Error ? e.message : String(e);
    throw withFields(codedError("CODEC_FAILED", `codec "${name}" failed to ${direction}: ${said}`, e), { codec: name });
  }
}

type StoreLike = {
  get(key: string, opts?: unknown): unknown;
  getRange?(key: string, range: unknown, opts?: unknown): unknown;
  set?(key: string, value: Uint8Array): unknown;
};

/** `store` with every request's failure coded by `fromStore`, for zarrita to read through. */
export function codedStore<S extends object>(store: S): S {
  const s = store as unknown as StoreLike;
  const coded: StoreLike = { get: (key, opts) => fromStore(key, () => s.get(key, opts)) };
  if (typeof s.getRange === "function") coded.getRange = (key, range, opts) => fromStore(key, () => s.getRange!(key, range, opts));
  if (typeof s.set === "function") coded.set = (key, value) => fromStore(key, () => s.set!(key, value));
  return coded as unknown as S;
}

/** `error` with those of `fields` that are given and that it does not have already. */
export function withFields(error: CodecError, fields: { path?: string; key?: string; codec?: string }): CodecError {
  for (const name of ["path", "key", "codec"] as const) {
    const value = fields[name];
    if (value !== undefined && error[name] === undefined) error[name] = value;
  }
  return error;
}

/** An Error with a stable, machine-readable `code`. */
export function codedError(code: ErrorCode, message: string, cause?: unknown): CodecError {
  const error = new Error(message, cause === undefined ? undefined : { cause }) as CodecError;
  error.code = code;
  return error;
}
