// Drops exports from a wasm module's binary before wasm-bindgen reads it. zstd-sys's wasm shim
// defines the C library's malloc, memcpy, qsort and the rest as `#[no_mangle]` Rust functions,
// which rustc exports from every cdylib that links it, so that nothing could drop them: the C
// decoder calls them directly, and without the exports wasm-bindgen's dead-code pass drops
// what only the exports reached (the shim's qsort, for zstd's dictionary builder, alone is
// 15 KB of code). Every other section is copied as it is.

/** An unsigned LEB128 at `at`: its value and where the next field starts. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

function encodeLeb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value) b |= 0x80;
    out.push(b);
  } while (value);
  return out;
}

/** `wasm` (a module's bytes) without the exports whose names start with `prefix`. */
export function withoutExports(wasm, prefix) {
  const parts = [wasm.subarray(0, 8)];
  let at = 8;
  let dropped = 0;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, body] = leb(wasm, at + 1);
    const end = body + size;
    if (id !== 7) {
      parts.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    // The export section: a count, then each export's name, kind and index.
    let [count, p] = leb(wasm, body);
    const kept = [];
    for (; count > 0; count--) {
      const start = p;
      const [length, name] = leb(wasm, p);
      const text = new TextDecoder().decode(wasm.subarray(name, name + length));
      p = leb(wasm, name + length + 1)[1];
      if (text.startsWith(prefix)) dropped++;
      else kept.push(wasm.subarray(start, p));
    }
    const section = Buffer.concat([Buffer.from(encodeLeb(kept.length)), ...kept]);
    parts.push(Buffer.from([7, ...encodeLeb(section.length)]), section);
    at = end;
  }
  return { wasm: Buffer.concat(parts), dropped };
}
