"""Write the stores bench/tiles.mjs reads a tile at a time, as zarr-python 3.4.2 writes them.

Usage: python bench/tile_stores.py DIR N

DIR/input.bin holds the field (N x N float64, little-endian; bench/tiles.mjs writes the design
card's field there first). For each tile side T in 128, 256 and 512, in T x T chunks with zstd
(level 0, zarr-python's default):

- uint8-T: the design card's packing, scale_offset(offset=-10, scale=10) + cast_value uint8
  (NaN <-> 0): read as float64;
- int16-cf-T: int16 (round(field * 100), NaN -> -32768) with xarray's CF attributes
  (scale_factor 0.01, _FillValue -32768), read as int16;
- float32-T: the field as float32.
"""

import sys
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec, CastValue, ScaleOffset, ZstdCodec
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
    for t in (128, 256, 512):
        a = zarr.create_array(
            store=LocalStore(out / f"uint8-{t}.zarr"), shape=field.shape, dtype="float64", chunks=(t, t),
            fill_value=np.nan, zarr_format=3, overwrite=True, filters=packed, serializer=BytesCodec(), compressors=[zstd],
        )
        a[...] = field
        b = zarr.create_array(
            store=LocalStore(out / f"int16-cf-{t}.zarr"), shape=field.shape, dtype="int16", chunks=(t, t),
            fill_value=-32768, zarr_format=3, overwrite=True, compressors=[zstd],
            attributes={"scale_factor": 0.01, "_FillValue": -32768},
        )
        b[...] = cf
        c = zarr.create_array(
            store=LocalStore(out / f"float32-{t}.zarr"), shape=field.shape, dtype="float32", chunks=(t, t),
            fill_value=np.nan, zarr_format=3, overwrite=True, compressors=[zstd],
        )
        c[...] = field.astype("<f4")


if __name__ == "__main__":
    main()
