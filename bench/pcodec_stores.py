"""The stores bench/pcodec.mjs reads, as zarr-python 3.4.2 writes them, and the time pcodec
itself (PyPI pcodec 1.1.0, native Rust) takes to decode their chunks.

Usage:
  python bench/pcodec_stores.py write DIR   writes the stores under DIR (skips existing ones)
  python bench/pcodec_stores.py time DIR ROUNDS
      decodes every chunk of each pcodec store with pcodec's own decoder (the call numcodecs
      makes, `pcodec.standalone.simple_decompress`), from bytes already in memory, one thread;
      prints per store the milliseconds of each whole pass (after one untimed) and their
      median, as JSON.

Each field is 4M values (2048 x 2048, or 64 x 256 x 256), in chunks of 262,144 values, each
stored twice: serializer numcodecs.pcodec with numcodecs' defaults (no compressor), and
zarr-python's default chain for the type (bytes + zstd level 0):

- smooth-2d: float64, 15 sin(i/61) cos(j/47) + 0.3 sin(i j / 997) (smooth, full mantissas);
- noisy-2d: float64, normal noise (seed 7): incompressible mantissas;
- smooth-3d: float64, sin(x) cos(y) + 0.1 z, x, y, z evenly spaced over [0, 2 pi];
- packed-int16-2d: a float64 field of temperatures (smooth, uniform noise of +-0.25, a disc of
  NaN) packed as scale_offset(scale=100) + cast_value int16 (NaN <-> -32768): pcodec sees
  16-bit integers.
"""

import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import CastValue, ScaleOffset
from zarr.codecs.numcodecs import PCodec

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"


def fields():
    i, j = np.meshgrid(np.arange(2048.0), np.arange(2048.0), indexing="ij")
    smooth = 15 * np.sin(i / 61) * np.cos(j / 47) + 0.3 * np.sin(i * j / 997)
    noisy = np.random.default_rng(7).standard_normal((2048, 2048))
    z, y, x = np.meshgrid(*(np.linspace(0, 2 * np.pi, n) for n in (64, 256, 256)), indexing="ij")
    cube = np.sin(x) * np.cos(y) + 0.1 * z
    rng = np.random.default_rng(11)
    temps = 2.75 + 12 * np.sin(i / 97) * np.cos(j / 131) + rng.uniform(-0.25, 0.25, i.shape)
    temps[(i - 1200) ** 2 + (j - 700) ** 2 < 300**2] = np.nan
    pack = [
        ScaleOffset(offset=0, scale=100),
        CastValue(
            data_type="int16",
            rounding="nearest-even",
            out_of_range="clamp",
            scalar_map={"encode": [("NaN", -32768)], "decode": [(-32768, "NaN")]},
        ),
    ]
    return [
        ("smooth-2d", smooth, (512, 512), []),
        ("noisy-2d", noisy, (512, 512), []),
        ("smooth-3d", cube, (16, 128, 128), []),
        ("packed-int16-2d", temps, (512, 512), pack),
    ]


def write(root):
    for name, values, chunks, filters in fields():
        for kind in ("pcodec", "zstd"):
            path = root / f"{name}.{kind}.zarr"
            if path.exists():
                continue
            extra = {"serializer": PCodec(), "compressors": None} if kind == "pcodec" else {}
            arr = zarr.create_array(
                store=str(path),
                shape=values.shape,
                chunks=chunks,
                dtype="float64",
                fill_value=np.nan,
                filters=filters,
                zarr_format=3,
                **extra,
            )
            arr[...] = values
            # What zarr-python reads back is what the benchmark checks against.
            back = zarr.open_array(str(path), mode="r")[...]
            (root / f"{name}.{kind}.sha256").write_text(hashlib.sha256(back.tobytes()).hexdigest())


def time_decode(root, rounds):
    from pcodec import standalone

    out = {}
    for name, values, chunks, _ in fields():
        path = root / f"{name}.pcodec.zarr"
        files = sorted(p for p in (path / "c").rglob("*") if p.is_file())
        stored = [p.read_bytes() for p in files]
        times = []
        for _ in range(rounds + 1):
            t0 = time.perf_counter()
            decoded = [standalone.simple_decompress(b) for b in stored]
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = {
            "times_ms": times[1:],
            "median_ms": statistics.median(times[1:]),
            "chunks": len(stored),
            "values": int(sum(d.size for d in decoded)),
            "stored_bytes": sum(len(b) for b in stored),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    mode, root = sys.argv[1], Path(sys.argv[2])
    root.mkdir(parents=True, exist_ok=True)
    if mode == "write":
        write(root)
    else:
        time_decode(root, int(sys.argv[3]))
