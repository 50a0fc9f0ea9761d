// Errors the JavaScript side raises itself, shaped like the wasm's: an Error with a stable `code`.

/** An Error with a stable, machine-readable `code`. */
export function codedError(code: string, message: string, cause?: unknown): Error & { code: string } {
  const error = new Error(message, cause === undefined ? undefined : { cause }) as Error & { code: string };
  error.code = code;
  return error;
}
