"""Write the stores bench/http.mjs reads over HTTP, as zarr-python 3.4.2 writes them.

Usage: python bench/http_stores.py DIR N

DIR/input.bin holds the field (N x N float64, little-endian; bench/http.mjs writes the design
card's field there first). Each store gets the field in a chain users have:

- uint8-gzip: scale_offset(offset=-10, scale=10) + cast_value uint8 (NaN <-> 0), gzip level 5,
  256 x 256 chunks (the viewer case: bytes on the wire small, gunzip the work);
- float64-zstd: zarr-python's default chain for float64 (bytes + zstd level 0), 256 x 256;
- int16-zstd: scale_offset(scale=100) + cast_value int16 (NaN <-> -32768) + zstd level 0,
  256 x 256;
- int16-zstd-sharded: the same, in 1024 x 1024 shards of 256 x 256 inner chunks (the index
  with a crc32c at the end, zarr-python's default);
- v2-blosc: a zarr v2 float64 array as zarr-python 2 wrote by default (Blosc lz4, clevel 5,
  byte shuffle), 256 x 256.
"""

import sys
from pathlib import Path

import numcodecs
import numpy as np
import zarr
from zarr.codecs import BytesCodec, CastValue, GzipCodec, ScaleOffset, ZstdCodec
from zarr.storage import LocalStore

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"


def packed(data_type, scale, offset, sentinel):
    return [
        ScaleOffset(offset=offset, scale=scale),
        CastValue(
            data_type=data_type,
            rounding="nearest-even",
            out_of_range="clamp",
            scalar_map={"encode": [("NaN", sentinel)], "decode": [(sentinel, "NaN")]},
        ),
    ]


def main() -> None:
    out = Path(sys.argv[1])
    n = int(sys.argv[2])
    field = np.frombuffer((out / "input.bin").read_bytes(), dtype="<f8").reshape(n, n)
    chunks = (256, 256)
    zstd = ZstdCodec(level=0, checksum=False)
    stores = {
        "uint8-gzip": dict(filters=packed("uint8", 10.0, -10.0, 0), compressors=[GzipCodec(level=5)]),
        "float64-zstd": dict(compressors=[zstd]),
        "int16-zstd": dict(filters=packed("int16", 100.0, 0.0, -32768), compressors=[zstd]),
        "int16-zstd-sharded": dict(filters=packed("int16", 100.0, 0.0, -32768), compressors=[zstd], shards=(1024, 1024)),
    }
    for name, kwargs in stores.items():
        arr = zarr.create_array(
            store=LocalStore(out / f"{name}.zarr"), shape=field.shape, dtype="float64", chunks=chunks,
            fill_value=np.nan, zarr_format=3, overwrite=True, serializer=BytesCodec(), **kwargs,
        )
        arr[...] = field
    v2 = zarr.create_array(
        store=LocalStore(out / "v2-blosc.zarr"), shape=field.shape, dtype="<f8", chunks=chunks, fill_value=np.nan,
        zarr_format=2, overwrite=True, compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
    )
    v2[...] = field


if __name__ == "__main__":
    main()
