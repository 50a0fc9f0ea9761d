// The hex of a typed array's bytes, as the Node tests compare them with zarr-python's.
export function hex(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
