"""Generate the sample data for the browser demo in ``www/``.

A synthetic monthly-mean surface air temperature field, dims (time, lat, lon) =
(12, 73, 144) on a 2.5 degree grid, in degrees Celsius, with land as NaN, is
written four times as zarr v3 arrays (LocalStore directories), the first three
by zarr-python:

* ``sample/temperature_float64.zarr``  the original float64 values
                                        (bytes + zstd level 3): the truth
* ``sample/temperature_uint8.zarr``    float64 array packed as
                                        scale_offset + cast_value -> uint8
                                        (nearest-even, clamp, NaN <-> 0)
* ``sample/temperature_int16.zarr``    the same packed to int16
                                        (nearest-even, clamp, NaN <-> -32768)
* ``sample/temperature_zfp.zarr``      the original float64 values with the
                                        zarr v3 ``zfp`` array->bytes codec in
                                        reversible (lossless) mode

zarr-python cannot write the ``zfp`` codec, so ``write_zfp_store`` writes that
store itself: ``zarr.json`` is the float64 store's with ``codecs`` replaced by
``[{"name": "zfp", "configuration": {"mode": "reversible"}}]``, and each chunk
file ``c/t/i/j`` is ``zfpy.compress_numpy(chunk, write_header=False)`` of the
C-contiguous (12, 37, 72) float64 chunk (a zfp 3-d field nz=12, ny=37, nx=72, no
zfp header, as the codec spec requires), edge chunks padded with the fill value
NaN as zarr does. Only reversible mode is lossless and keeps the NaN land mask;
zfp's lossy modes cannot represent NaN. Every chunk is decoded again and
checked bit for bit.

Size: the zfp store's chunks hold all 12 months, (12, 37, 72), so zfp's 4x4x4
blocks are full; chunks one month deep are 3-d fields with nz = 1 (the codec
spec does not squeeze 1-4-d chunks), whose blocks would be 3/4 padding, and
the store would be ~2.5x the raw data.

``sample/manifest.json`` describes them: grid, offset/scale of each packed
store, the maximum quantisation error, total chunk bytes of each store, NaN
counts, per-month sha256/min/max of what is read back (by zarr-python, or for
the zfp store by zfpy), and probe points (see ``build_manifest``).

Requirements (the exact zarr and zfpy versions are asserted below)::

    python3.12 -m venv .venv
    .venv/bin/pip install "zarr==3.4.2" cast-value-rs numpy "zfpy==1.0.1"
    .venv/bin/python generate.py

(zarr-python's ``cast_value`` codec needs the ``cast-value-rs`` package.)
Pin ``zfpy==1.0.1`` exactly: zfpy 1.0.1.post0 breaks numcodecs (which
zarr-python imports), so do not let pip pick a newer post release.
No network access is needed. The script can be run from any working
directory; it deletes and rewrites ``sample/`` next to this file.

Determinism: the noise comes from a fixed numpy seed and every other step is
plain arithmetic, so the values, the chunk files (zstd output is deterministic
for a given libzstd, zfp's reversible output for a given zfp version) and
manifest.json are the same on every run.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
import json
import math
import shutil
import struct
from pathlib import Path

import numpy as np
import zarr
import zfpy
from numcodecs import Zstd
from zarr.codecs import BytesCodec, CastValue, ScaleOffset, ZstdCodec
from zarr.storage import LocalStore

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"
ZFPY_VERSION = importlib.metadata.version("zfpy")
assert ZFPY_VERSION == "1.0.1", f"need zfpy==1.0.1, found {ZFPY_VERSION}"

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "sample"
SEED = 20240101

NT, NLAT, NLON = 12, 73, 144
SHAPE = (NT, NLAT, NLON)
CHUNKS = (1, 37, 72)  # one month = 2 x 2 chunks; 73 = 37 + 36 and 144 = 72 + 72
# The zfp copy keeps all 12 months in a chunk: zfp codes 4 x 4 x 4 blocks, and a chunk one month
# deep (a 3-D field with nz = 1, which the codec must not squeeze) would leave three quarters of
# every block as padding. A month still touches 2 x 2 chunks.
ZFP_CHUNKS = (12, 37, 72)
DIMS = ["time", "lat", "lon"]

LAT = [90.0 - 2.5 * i for i in range(NLAT)]  # 90 .. -90
LON = [2.5 * j for j in range(NLON)]  # 0 .. 357.5
TIME = [f"2024-{m:02d}" for m in range(1, NT + 1)]

STORE_PATHS = {
    "float64": "temperature_float64.zarr",
    "uint8": "temperature_uint8.zarr",
    "int16": "temperature_int16.zarr",
    "zfp": "temperature_zfp.zarr",
}
ZARR_STORES = ("float64", "uint8", "int16")  # written and read by zarr-python
ZFP_CODECS = [{"name": "zfp", "configuration": {"mode": "reversible"}}]


# ---------------------------------------------------------------------------
# the field
# ---------------------------------------------------------------------------


def _blob(lat2, lon2, lat0, lon0, a, b, tilt=0.0):
    """A smooth bump centred on (lat0, lon0); a, b = half-widths in degrees of
    latitude / of great-circle distance along the parallel; tilt rotates it."""
    dlat = lat2 - lat0
    dlon = (lon2 - lon0 + 180.0) % 360.0 - 180.0
    dx = dlon * np.cos(np.radians(0.5 * (lat2 + lat0)))
    c, s = math.cos(math.radians(tilt)), math.sin(math.radians(tilt))
    u = c * dx + s * dlat
    v = -s * dx + c * dlat
    return np.exp(-((u / b) ** 2 + (v / a) ** 2))


def land_mask(lat2: np.ndarray, lon2: np.ndarray) -> np.ndarray:
    """Continent-like blobs (True = land), the same for every month."""
    phi, lam = np.radians(lat2), np.radians(lon2)
    f = (
        _blob(lat2, lon2, 55.0, 95.0, 17.0, 48.0)  # Eurasia
        + _blob(lat2, lon2, 47.0, 25.0, 9.0, 16.0, tilt=-15.0)  # Europe
        + _blob(lat2, lon2, 28.0, 78.0, 9.0, 14.0)  # South Asia
        + _blob(lat2, lon2, 6.0, 18.0, 25.0, 28.0)  # Africa
        + _blob(lat2, lon2, -18.0, 27.0, 12.0, 13.0)  # southern Africa
        + _blob(lat2, lon2, 52.0, 260.0, 17.0, 32.0, tilt=10.0)  # North America
        + _blob(lat2, lon2, 25.0, 257.0, 8.0, 10.0, tilt=-35.0)  # Mexico
        + _blob(lat2, lon2, -12.0, 298.0, 22.0, 17.0, tilt=15.0)  # South America
        + _blob(lat2, lon2, -25.0, 134.0, 10.0, 19.0)  # Australia
        + _blob(lat2, lon2, 74.0, 318.0, 8.0, 9.0)  # Greenland
        + np.exp(-(((lat2 + 90.0) / 16.0) ** 2))  # Antarctica
    )
    # wiggly coastlines
    f = f + 0.12 * np.sin(5.0 * lam + 3.0 * phi) * np.cos(4.0 * phi - 0.7 * lam)
    return f > 0.5


def temperature(rng: np.random.Generator):
    lat2, lon2 = np.meshgrid(np.array(LAT), np.array(LON), indexing="ij")
    phi, lam = np.radians(lat2), np.radians(lon2)
    sphi = np.sin(phi)
    cphi = np.clip(np.cos(phi), 0.0, None)  # cos(90 deg) is 6e-17, keep it >= 0

    # annual mean: ~27 C in the tropics, ~-17.5 C at the poles
    annual = 27.0 - 44.5 * np.abs(sphi) ** 2.3
    # seasonal amplitude grows towards the poles; sign flips between hemispheres
    amplitude = 12.5 * np.abs(sphi) ** 1.5 * np.sign(sphi)
    # western Pacific warm pool, eastern Pacific cold tongue
    enso = 1.6 * _blob(lat2, lon2, 0.0, 150.0, 14.0, 40.0) - 1.8 * _blob(
        lat2, lon2, -2.0, 255.0, 6.0, 30.0
    )
    # wave weight: smaller (but not zero, so the pole rows are not constant) at the poles
    wave_w = 0.35 + 0.65 * cphi

    field = np.empty(SHAPE, dtype=np.float64)
    for t in range(NT):
        # NH winter in January (t = 0), NH summer in July (t = 6)
        season = -math.cos(2.0 * math.pi * (t - 0.3) / 12.0)
        waves = (
            1.4 * np.cos(2.0 * lam + 1.2 * phi + 0.35 * season)
            + 0.8 * np.sin(3.0 * lam - 2.0 * phi + 2.0 * math.pi * t / 12.0)
            + 0.8 * np.cos(lam + 0.5) * np.sin(2.0 * phi)
        )
        field[t] = annual + amplitude * season + enso + wave_w * waves

    field += rng.normal(0.0, 0.35, size=SHAPE)

    land = land_mask(lat2, lon2)
    field[:, land] = np.nan
    return field, land


# ---------------------------------------------------------------------------
# packing parameters
# ---------------------------------------------------------------------------


def nice_ceil(x: float) -> float:
    """Smallest of 1, 2, 2.5, 5 x 10^k that is >= x."""
    k = math.floor(math.log10(x))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        v = float(f"{m}e{k}")
        if v >= x:
            return v
    raise AssertionError


def encode_codes(data: np.ndarray, offset: float, scale: float) -> np.ndarray:
    """(x - offset) * scale in float64, as the scale_offset codec computes it."""
    return (data - np.float64(offset)) * np.float64(scale)


def uint8_params(vmin: float, vmax: float) -> tuple[float, float]:
    """Step = (max - min) / 254 rounded up to a nice value; offset one step below
    the minimum, rounded down to a multiple of the step; scale = 1 / step."""
    step = nice_ceil((vmax - vmin) / 254.0)
    scale = float(round(1.0 / step, 12))
    offset = float(round(math.floor(vmin / step - 1.0) * step, 10))
    return offset, scale


def int16_params(vmin: float, vmax: float) -> tuple[float, float]:
    """Offset = mid-range rounded to 0.1; scale = the largest multiple of 10
    that maps the data into -32000..32000."""
    offset = round(0.5 * (vmin + vmax), 1)
    half = max(vmax - offset, offset - vmin)
    scale = float(math.floor(32000.0 / half / 10.0) * 10)
    return offset, scale


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


def attributes() -> dict:
    return {
        "units": "degC",
        "long_name": "air temperature",
        "lat": LAT,
        "lon": LON,
        "time": TIME,
    }


def write_store(name: str, data: np.ndarray, *, filters, compressors):
    with zarr.config.set({"array.write_empty_chunks": True}):
        arr = zarr.create_array(
            store=LocalStore(SAMPLE / STORE_PATHS[name]),
            shape=SHAPE,
            chunks=CHUNKS,
            dtype="float64",
            fill_value=float("nan"),
            filters=filters,
            serializer=BytesCodec(endian="little"),
            compressors=compressors,
            dimension_names=DIMS,
            attributes=attributes(),
            zarr_format=3,
        )
        arr[...] = data


def chunk_slices(chunks=CHUNKS):
    """(chunk key, index into the array, shape of the real data) of every chunk,
    in C order of the chunk grid."""
    grid = [math.ceil(n / c) for n, c in zip(SHAPE, chunks)]
    for idx in itertools.product(*(range(g) for g in grid)):
        sl = tuple(slice(k * c, min((k + 1) * c, n)) for k, c, n in zip(idx, chunks, SHAPE))
        yield "c/" + "/".join(str(k) for k in idx), sl, tuple(s.stop - s.start for s in sl)


def padded_chunk(data: np.ndarray, sl, real, chunks=CHUNKS) -> np.ndarray:
    """The full C-contiguous float64 chunk, edge chunks padded with the fill value
    NaN as zarr does."""
    chunk = np.full(chunks, np.nan, dtype=np.float64)
    chunk[tuple(slice(0, r) for r in real)] = data[sl]
    assert chunk.flags.c_contiguous and chunk.dtype == np.float64
    return chunk


def write_zfp_store(data: np.ndarray) -> np.ndarray:
    """Write ``temperature_zfp.zarr`` by hand (zarr-python has no zfp codec),
    decode every chunk again, check it bit for bit and return the reassembled
    array. Needs the float64 store written first (its zarr.json is the model)."""
    root = SAMPLE / STORE_PATHS["zfp"]
    meta = json.loads((SAMPLE / STORE_PATHS["float64"] / "zarr.json").read_text())
    assert meta["codecs"][0]["name"] == "bytes", meta["codecs"]
    meta["codecs"] = ZFP_CODECS
    meta["chunk_grid"]["configuration"]["chunk_shape"] = list(ZFP_CHUNKS)
    root.mkdir(parents=True)
    # the same layout as zarr-python writes (indent 2, no final newline)
    (root / "zarr.json").write_text(json.dumps(meta, indent=2, allow_nan=False))

    out = np.full(SHAPE, np.nan, dtype=np.float64)
    for key, sl, real in chunk_slices(ZFP_CHUNKS):
        chunk = padded_chunk(data, sl, real, ZFP_CHUNKS)
        stream = zfpy.compress_numpy(chunk, write_header=False)  # reversible mode
        path = root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(stream)

        dec = zfpy._decompress(path.read_bytes(), zfpy.type_double, list(ZFP_CHUNKS))
        assert dec.dtype == np.float64 and dec.shape == ZFP_CHUNKS, (key, dec.dtype, dec.shape)
        assert le_bytes(dec) == le_bytes(chunk), f"zfp chunk {key} is not bit-exact"
        out[sl] = dec[tuple(slice(0, r) for r in real)]
    return out


def check_zarr_padding(data: np.ndarray) -> None:
    """The float64 store's chunks (bytes little-endian + zstd) are exactly the
    padded chunks given to zfp, i.e. the zfp store pads edge chunks as zarr does."""
    root = SAMPLE / STORE_PATHS["float64"]
    for key, sl, real in chunk_slices():
        raw = Zstd().decode((root / key).read_bytes())
        assert bytes(raw) == le_bytes(padded_chunk(data, sl, real)), f"float64 chunk {key}"


def chunk_bytes(name: str) -> int:
    """Total size of the chunk files c/... of a store."""
    files = [p for p in (SAMPLE / STORE_PATHS[name] / "c").rglob("*") if p.is_file()]
    chunks = ZFP_CHUNKS if name == "zfp" else CHUNKS
    assert len(files) == math.prod(math.ceil(n / c) for n, c in zip(SHAPE, chunks)), name
    return sum(p.stat().st_size for p in files)


def packed_filters(dtype: str, offset: float, scale: float, sentinel: int):
    return [
        ScaleOffset(offset=offset, scale=scale),
        CastValue(
            data_type=dtype,
            rounding="nearest-even",
            out_of_range="clamp",
            scalar_map={"encode": [("NaN", sentinel)], "decode": [(sentinel, "NaN")]},
        ),
    ]


# ---------------------------------------------------------------------------
# reading back, manifest
# ---------------------------------------------------------------------------


def read_store(name: str) -> np.ndarray:
    arr = zarr.open_array(LocalStore(SAMPLE / STORE_PATHS[name], read_only=True), mode="r")
    assert arr.shape == SHAPE and arr.chunks == CHUNKS and arr.dtype == np.float64
    out = np.asarray(arr[...])
    assert out.dtype == np.float64 and out.shape == SHAPE
    return out


def le_bytes(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a, dtype="<f8").tobytes(order="C")


def num(v) -> float | None:
    """A float as a JSON number (null for NaN)."""
    f = float(v)
    if math.isnan(f):
        return None
    assert math.isfinite(f)
    return f


def bits(v) -> str:
    """The IEEE-754 float64 bit pattern, 16 hex digits, most significant first."""
    return struct.pack(">d", float(v)).hex()


def per_time(out: np.ndarray) -> list[dict]:
    rows = []
    for t in range(NT):
        m = out[t]
        ok = ~np.isnan(m)
        rows.append(
            {
                "sha256": hashlib.sha256(le_bytes(m)).hexdigest(),
                "min": num(m[ok].min()),
                "max": num(m[ok].max()),
                "nan": int((~ok).sum()),
            }
        )
    return rows


def probe_points(truth: np.ndarray) -> list[tuple[str, tuple[int, int, int]]]:
    """~10 points spread over the grid: the min and max of the field, two land
    (NaN) points, and ocean points in different months, chunks and latitudes."""
    tmin = np.unravel_index(np.nanargmin(truth), SHAPE)
    tmax = np.unravel_index(np.nanargmax(truth), SHAPE)
    pts = [
        ("min", tuple(int(i) for i in tmin)),
        ("max", tuple(int(i) for i in tmax)),
        ("land", (0, 14, 40)),  # Eurasia, 55N 100E, chunk (0, 0, 0)
        ("land", (11, 72, 143)),  # south pole (Antarctica), last element, partial edge chunk
        ("ocean", (0, 0, 0)),  # north pole, first element
        ("ocean", (2, 60, 100)),  # 60S 250E in March
        ("ocean", (3, 36, 71)),  # equator, last row/column of chunk (3, 0, 0)
        ("ocean", (5, 37, 72)),  # 2.5S 180E, first element of chunk (5, 1, 1)
        ("ocean", (6, 20, 80)),  # 40N 200E (North Pacific) in July
        ("ocean", (9, 52, 10)),  # 40S 25E in October
    ]
    for kind, p in pts:
        is_nan = bool(np.isnan(truth[p]))
        assert is_nan == (kind == "land"), (kind, p)
    return pts


def build_manifest(truth: np.ndarray, reads: dict, params: dict) -> dict:
    ok = ~np.isnan(truth)
    stores: dict = {}
    for name in ("uint8", "int16"):
        out = reads[name]
        assert np.array_equal(np.isnan(out), ~ok), f"{name}: NaN mask differs"
        offset, scale = params[name]
        stores[name] = {
            "path": STORE_PATHS[name],
            "dtype": name,
            "offset": offset,
            "scale": scale,
            "max_abs_error": float(np.abs(out[ok] - truth[ok]).max()),
            "bytes": chunk_bytes(name),
        }
    stores["float64"] = {
        "path": STORE_PATHS["float64"],
        "dtype": "float64",
        "bytes": chunk_bytes("float64"),
    }
    out = reads["zfp"]
    assert le_bytes(out) == le_bytes(truth), "zfp store is not lossless"
    stores["zfp"] = {
        "path": STORE_PATHS["zfp"],
        "dtype": "float64",
        "mode": ZFP_CODECS[0]["configuration"]["mode"],
        "max_abs_error": float(np.abs(out[ok] - truth[ok]).max()),
        "bytes": chunk_bytes("zfp"),
    }
    assert stores["zfp"]["max_abs_error"] == 0.0

    probes = []
    for kind, (t, i, j) in probe_points(truth):
        for name in ("uint8", "int16", "float64"):
            v = reads[name][t, i, j]
            probes.append(
                {
                    "store": name,
                    "kind": kind,
                    "t": t,
                    "lat_index": i,
                    "lon_index": j,
                    "lat": LAT[i],
                    "lon": LON[j],
                    "value": num(v),
                    "bits": bits(v),
                }
            )

    nan_per_t = [int(np.isnan(truth[t]).sum()) for t in range(NT)]
    rows = {name: per_time(reads[name]) for name in ("uint8", "int16", "float64", "zfp")}
    assert rows["zfp"] == rows["float64"], "zfp per-month sha256/min/max/nan differ from float64"
    return {
        "shape": list(SHAPE),
        "chunks": list(CHUNKS),
        "dimension_names": DIMS,
        "units": "degC",
        "long_name": "air temperature",
        "lat": LAT,
        "lon": LON,
        "time": TIME,
        "stores": stores,
        "nan_count": int(np.isnan(truth).sum()),
        "nan_count_per_time": nan_per_t,
        "min": float(truth[ok].min()),
        "max": float(truth[ok].max()),
        "per_time": rows,
        "probes": probes,
        "notes": (
            "Synthetic data (numpy seed %d), generated by generate.py with zarr-python %s "
            "and zfpy %s. "
            "Decoded value = stored / scale + offset; the sentinel (uint8 0, int16 -32768) "
            "decodes to NaN (land). The zfp store uses the zarr v3 zfp codec in reversible "
            "(lossless) mode, headerless streams of the (1, 37, 72) float64 chunks, edge "
            "chunks padded with NaN. per_time[store][t].sha256 is the sha256 of the month "
            "[t, :, :] as zarr-python (zfp store: zfpy) reads it, little-endian float64, "
            "C order (lat rows from 90 to -90, lon 0 to 357.5). min/max skip NaN. "
            "probes[].value is null for NaN; probes[].bits is the float64 bit pattern, 16 "
            "hex digits, most significant first. max_abs_error = max over non-NaN points of "
            "|decoded - original|. stores[].bytes = total size of the store's chunk files."
            % (SEED, zarr.__version__, ZFPY_VERSION)
        ),
    }


def main() -> None:
    rng = np.random.default_rng(SEED)
    truth, land = temperature(rng)
    ok = ~np.isnan(truth)
    vmin, vmax = float(truth[ok].min()), float(truth[ok].max())
    frac = float(land.mean())
    assert 0.25 <= frac <= 0.30, f"land fraction {frac:.3f}"

    u8 = uint8_params(vmin, vmax)
    i16 = int16_params(vmin, vmax)
    params = {"uint8": u8, "int16": i16}

    # the data range must map into 1..255 / about -32000..32000 without clamping
    c = np.round(encode_codes(truth[ok], *u8))  # np.round is half-to-even
    assert c.min() >= 1 and c.max() <= 255, (c.min(), c.max())
    c = np.round(encode_codes(truth[ok], *i16))
    assert -32000 <= c.min() and c.max() <= 32000, (c.min(), c.max())
    assert c.min() < -30000 and c.max() > 30000, (c.min(), c.max())

    if SAMPLE.exists():
        shutil.rmtree(SAMPLE)
    SAMPLE.mkdir(parents=True)

    write_store("float64", truth, filters=None, compressors=[ZstdCodec(level=3)])
    write_store("uint8", truth, filters=packed_filters("uint8", *u8, 0), compressors=None)
    write_store("int16", truth, filters=packed_filters("int16", *i16, -32768), compressors=None)

    reads = {name: read_store(name) for name in ZARR_STORES}
    assert le_bytes(reads["float64"]) == le_bytes(truth), "float64 store does not round-trip"
    check_zarr_padding(truth)
    reads["zfp"] = write_zfp_store(truth)
    assert le_bytes(reads["zfp"]) == le_bytes(truth), "zfp store does not round-trip"
    for name in ("uint8", "int16"):
        meta = json.loads((SAMPLE / STORE_PATHS[name] / "zarr.json").read_text())
        so = meta["codecs"][0]["configuration"]
        assert (so["offset"], so["scale"]) == params[name], (so, params[name])

    manifest = build_manifest(truth, reads, params)
    text = json.dumps(manifest, indent=1, allow_nan=False)
    (SAMPLE / "manifest.json").write_text(text + "\n")

    size = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert size < 3_000_000, size
    print(f"wrote {SAMPLE} ({size} bytes)")
    print(f"land fraction {frac:.4f}, min {vmin:.4f}, max {vmax:.4f}")
    for name in ("uint8", "int16"):
        s = manifest["stores"][name]
        print(f"{name}: offset {s['offset']!r} scale {s['scale']!r} "
              f"max_abs_error {s['max_abs_error']!r}")
    raw = truth.nbytes
    for name in ("uint8", "int16", "float64", "zfp"):
        b = manifest["stores"][name]["bytes"]
        print(f"{name}: chunk bytes {b} ({b / raw:.3f} of raw {raw})")


if __name__ == "__main__":
    main()
