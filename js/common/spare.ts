// Buffers used again: one given back serves a later need of about its size.

/**
 * Whether `spare` serves a need of `n` bytes: at least that many, and at most twice as many (a
 * far larger one is kept for a need it fits, rather than held by a small one).
 */
export function serves(spare: ArrayBuffer, n: number): boolean {
  return spare.byteLength >= n && spare.byteLength <= 2 * n;
}
