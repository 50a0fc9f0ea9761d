"""Write the stores bench/extension.mjs reads, as zarr-python 3.4.2 writes them by default.

Usage: python bench/extension_stores.py DIR N

DIR/input.bin holds the field (N x N float64, little-endian; bench/extension.mjs writes the design
card's field there first). Each store holds the field in 256 x 256 chunks, as float64 and packed
as uint8 (scale_offset(offset=-10, scale=10) + cast_value uint8, NaN <-> 0), in each of the
containers zarr-python writes by default:

- v3-zstd: zarr-python 3's default compressor (zstd level 0, no checksum);
- v3-blosc: BloscCodec() with its defaults (zstd, clevel 5, shuffle by the item size);
- v3-sharded: zstd inner chunks in 1024 x 1024 shards, the index with a crc32c at the end;
- v2-blosc: zarr v2 with numcodecs' Blosc(lz4, clevel 5, byte shuffle), zarr-python 2's default;
- v2-zstd: zarr v2 with numcodecs' Zstd (level 0), zarr-python 3's default for v2.

Each store's values as zarr-python reads them back go to DIR/NAME.expected.bin (float64).
"""

import sys
from pathlib import Path

import numcodecs
import numpy as np
import zarr
from zarr.codecs import BloscCodec, BytesCodec, CastValue, ScaleOffset, ZstdCodec
from zarr.storage import LocalStore

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"


def packed():
    return [
        ScaleOffset(offset=-10.0, scale=10.0),
        CastValue(
            data_type="uint8",
            rounding="nearest-even",
            out_of_range="clamp",
            scalar_map={"encode": [("NaN", 0)], "decode": [(0, "NaN")]},
        ),
    ]


def main() -> None:
    out = Path(sys.argv[1])
    n = int(sys.argv[2])
    field = np.frombuffer((out / "input.bin").read_bytes(), dtype="<f8").reshape(n, n)
    chunks = (256, 256)
    zstd = ZstdCodec(level=0, checksum=False)
    containers = {
        "v3-zstd": dict(zarr_format=3, compressors=[zstd]),
        "v3-blosc": dict(zarr_format=3, compressors=[BloscCodec()]),
        "v3-sharded": dict(zarr_format=3, compressors=[zstd], shards=(1024, 1024)),
        "v2-blosc": dict(zarr_format=2, compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
        "v2-zstd": dict(zarr_format=2, compressors=numcodecs.Zstd(level=0)),
    }
    for container, kwargs in containers.items():
        forms = {"float64": {}}
        if kwargs["zarr_format"] == 3:
            forms["uint8"] = dict(filters=packed(), serializer=BytesCodec())
        else:
            # zarr v2's packing: numcodecs' FixedScaleOffset to uint8 (NaN has no sentinel there: 0).
            forms["uint8"] = dict(filters=[numcodecs.FixedScaleOffset(offset=-10, scale=10, dtype="<f8", astype="u1")])
        for form, extra in forms.items():
            name = f"{container}-{form}"
            values = field if form == "float64" or kwargs["zarr_format"] == 3 else np.nan_to_num(np.clip(field, -10, 15.5))
            arr = zarr.create_array(
                store=LocalStore(out / f"{name}.zarr"), shape=field.shape, dtype="<f8" if kwargs["zarr_format"] == 2 else "float64",
                chunks=chunks, fill_value=np.nan if form == "float64" or kwargs["zarr_format"] == 3 else 0.0, overwrite=True,
                **kwargs, **extra,
            )
            arr[...] = values
            (out / f"{name}.expected.bin").write_bytes(np.ascontiguousarray(arr[...], dtype="<f8").tobytes())


if __name__ == "__main__":
    main()
