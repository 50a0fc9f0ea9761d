"""Write the stores bench/network.mjs reads over a slow link, as zarr-python 3.4.2 writes them.

Usage: python bench/network_stores.py DIR N

DIR/input.bin holds the field (N x N float64, little-endian; bench/network.mjs writes the design
card's field there first). The field is stored four ways, each in 256 x 256 chunks and sharded
(1024 x 1024 shards of 128 x 128 inner chunks, zarr-python's crc32c index at the end):

- float32: the field as float32 + zstd (level 0, zarr-python's default);
- uint8: the design card's packing, scale_offset(offset=-10, scale=10) + cast_value uint8
  (NaN <-> 0) + zstd, read as float64;
- int16-cf: int16 (round(field * 100), NaN -> -32768) + zstd with xarray's CF attributes
  (scale_factor 0.01, _FillValue -32768);
- zfpy: float32 with numcodecs.zfpy (mode 4, tolerance 0.01; the zfp codec zarr-python writes),
  which zarrita cannot read.
"""

import sys
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec, CastValue, ScaleOffset, ZstdCodec
from zarr.codecs.numcodecs import ZFPY
from zarr.storage import LocalStore

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"


def main() -> None:
    out = Path(sys.argv[1])
    n = int(sys.argv[2])
    field = np.frombuffer((out / "input.bin").read_bytes(), dtype="<f8").reshape(n, n)
    zstd = ZstdCodec(level=0, checksum=False)
    packed = [
        ScaleOffset(offset=-10.0, scale=10.0),
        CastValue(
            data_type="uint8",
            rounding="nearest-even",
            out_of_range="clamp",
            scalar_map={"encode": [("NaN", 0)], "decode": [(0, "NaN")]},
        ),
    ]
    cf = np.where(np.isnan(field), -32768, np.round(field * 100)).astype("<i2")
    f32 = field.astype("<f4")
    kinds = {
        "float32": dict(data=f32, dtype="float32", fill_value=np.nan, compressors=[zstd]),
        "uint8": dict(data=field, dtype="float64", fill_value=np.nan, filters=packed, serializer=BytesCodec(), compressors=[zstd]),
        "int16-cf": dict(data=cf, dtype="int16", fill_value=-32768, compressors=[zstd], attributes={"scale_factor": 0.01, "_FillValue": -32768}),
        "zfpy": dict(data=np.nan_to_num(f32, nan=0.0), dtype="float32", fill_value=0.0, serializer=ZFPY(mode=4, tolerance=0.01), compressors=None),
    }
    for name, kwargs in kinds.items():
        data = kwargs.pop("data")
        for sharded in (False, True):
            layout = dict(chunks=(128, 128), shards=(1024, 1024)) if sharded else dict(chunks=(256, 256))
            a = zarr.create_array(
                store=LocalStore(out / f"{name}{'-sharded' if sharded else ''}.zarr"), shape=field.shape, zarr_format=3,
                overwrite=True, **layout, **kwargs,
            )
            a[...] = data


if __name__ == "__main__":
    main()
