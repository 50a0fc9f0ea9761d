// gzip as a bytes -> bytes codec with encode: zarrita 0.7's own gzip only decodes. Both
// directions use the platform's CompressionStream (Node >= 18, every current browser).
async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const body = new Blob([bytes as unknown as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

export const GzipCodec = {
  fromConfig(_config: unknown) {
    return {
      kind: "bytes_to_bytes" as const,
      encode: (bytes: Uint8Array) => pipe(bytes, new CompressionStream("gzip")),
      decode: (bytes: Uint8Array) => pipe(bytes, new DecompressionStream("gzip")),
    };
  },
};
