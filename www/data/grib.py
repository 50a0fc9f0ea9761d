"""Write the demo's OISST sea-surface temperature as GRIB2 (``www/data/real/oisst-grib/``).

Reads the ``original`` array that ``generate.py`` writes (``real/oisst/sst/original.zarr``:
NOAA OISST v2, 1981-12-31, 90 x 180 on a 2 degree grid, rows north first, longitudes -180 to
178, float32 degrees Celsius, NaN over land and ice) and writes it with ecCodes in the two
packings most met in real archives:

* ``sst-simple.grib2``: grid_simple (template 5.0) with a bitmap (land missing),
  decimalScaleFactor 2, bitsPerValue chosen by ecCodes: NCEP's way for such fields, exact to
  the netCDF's 0.01 steps.
* ``sst-ccsds.grib2``: grid_ccsds (5.42, CCSDS/libaec) with a bitmap, bitsPerValue 16,
  decimalScaleFactor 0: ECMWF's way (its operational default since 2023).

Both hold SST as GRIB2 defines it (discipline 10, category 3, number 0: kelvin), so the values
are the original's hundredths plus 273.15 (``(round(C * 100) + 27315) / 100``); a reader
compares with the original by subtracting 273.15. The grid: regular_ll, latitude 89 to -89,
longitudeOfFirstGridPoint 180 (ecCodes gives the longitudes as -180 ... 178, the original's),
shapeOfTheEarth 6; centre 7, 1981-12-31 12:00, analysis.

Beside each file: ``<name>.kerchunk.json``, the one reference set
``kerchunk.grib2.scan_grib(file, inline_threshold=100)`` returns (version 1, zarr v2; the file's
URL written as the bare file name in ``templates.u``), and the values kerchunk's codec decodes
(``GRIBCodec(var="sst", dtype="float64")`` and the float32 default) as ``<name>.f64.gz`` /
``<name>.f32.gz`` (little-endian, gzip, 90 x 180, NaN where missing), with ``latitude.f64.gz``
and ``longitude.f64.gz`` (``GRIBCodec(var=...)``, all 16200 points). ``manifest.json`` lists the
files, ecCodes' keys of each message and the largest difference from the original.

Versions as tests/fixtures/grib/make.py (eccodes 2.50.1 with eccodeslib 2.50.0.33, kerchunk
0.2.10, cfgrib 0.9.15.1, zarr 3.4.2, numpy 2.5.5). Run after ``generate.py`` (which clears
``real/``)::

    v/bin/python www/data/grib.py

The output is deterministic.
"""

from __future__ import annotations

import gzip
import json
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np

VERSIONS = {"eccodes": "2.50.1", "eccodeslib": "2.50.0.33", "kerchunk": "0.2.10", "cfgrib": "0.9.15.1",
            "zarr": "3.4.2", "numpy": "2.5.5"}
for _name, _want in VERSIONS.items():
    assert version(_name) == _want, (_name, version(_name), _want)

import eccodes as ec  # noqa: E402
import kerchunk.grib2  # noqa: E402
import zarr  # noqa: E402
from kerchunk.codecs import GRIBCodec  # noqa: E402

HERE = Path(__file__).resolve().parent
SRC = HERE / "real/oisst/sst/original.zarr"
OUT = HERE / "real/oisst-grib"
PACKINGS = {
    "sst-simple": {"packingType": "grid_simple", "decimalScaleFactor": 2},
    "sst-ccsds": {"packingType": "grid_ccsds", "bitsPerValue": 16},
}
KEYS = ["packingType", "dataRepresentationTemplateNumber", "gridType", "Ni", "Nj", "numberOfValues",
        "numberOfDataPoints", "numberOfMissing", "bitsPerValue", "decimalScaleFactor", "binaryScaleFactor",
        "referenceValue", "bitmapPresent", "ccsdsFlags", "ccsdsBlockSize", "ccsdsRsi", "shortName",
        "cfVarName", "missingValue", "longitudeOfFirstGridPointInDegrees", "longitudeOfLastGridPointInDegrees"]


def write(values_k: np.ndarray, packing: dict) -> bytes:
    h = ec.codes_grib_new_from_samples("regular_ll_sfc_grib2")
    try:
        ec.codes_set(h, "centre", 7)
        ec.codes_set(h, "tablesVersion", 31)
        ec.codes_set_key_vals(h, {"dataDate": 19811231, "dataTime": 1200})
        ec.codes_set_key_vals(h, {
            "Ni": 180, "Nj": 90,
            "latitudeOfFirstGridPointInDegrees": 89.0, "longitudeOfFirstGridPointInDegrees": 180.0,
            "latitudeOfLastGridPointInDegrees": -89.0, "longitudeOfLastGridPointInDegrees": 178.0,
            "iDirectionIncrementInDegrees": 2.0, "jDirectionIncrementInDegrees": 2.0,
        })
        ec.codes_set_key_vals(h, {"discipline": 10, "parameterCategory": 3, "parameterNumber": 0})
        pk = dict(packing)
        ec.codes_set(h, "packingType", pk.pop("packingType"))
        ec.codes_set(h, "bitmapPresent", 1)
        for k, v in pk.items():
            ec.codes_set(h, k, v)
        ec.codes_set_values(h, np.where(np.isnan(values_k), 9999.0, values_k).ravel())
        return ec.codes_get_message(h)
    finally:
        ec.codes_release(h)


def keys_of(data: bytes) -> dict:
    h = ec.codes_new_from_message(data)
    try:
        out = {}
        for k in KEYS:
            if ec.codes_is_defined(h, k):
                v = ec.codes_get(h, k)
                out[k] = v.item() if isinstance(v, np.generic) else v
        return out
    finally:
        ec.codes_release(h)


def gz(path: Path, a: np.ndarray, dtype: str) -> None:
    path.write_bytes(gzip.compress(np.ascontiguousarray(a, dtype=dtype).tobytes(), compresslevel=9, mtime=0))


def main() -> None:
    original = zarr.open_array(str(SRC), mode="r")[...]
    assert original.shape == (90, 180) and original.dtype == np.float32
    centi = np.round(original.astype("f8") * 100.0)
    kelvin = (centi + 27315.0) / 100.0
    OUT.mkdir(parents=True, exist_ok=True)
    for q in OUT.iterdir():
        q.unlink()
    manifest = {"source": "real/oisst/sst/original.zarr", "units": "K (original degree_C + 273.15)",
                "shape": [90, 180], "versions": {n: version(n) for n in VERSIONS}, "files": {}, "messages": {}}
    coords_done = False
    for name, packing in PACKINGS.items():
        data = write(kelvin, packing)
        (OUT / f"{name}.grib2").write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (refs,) = kerchunk.grib2.scan_grib(str(OUT / f"{name}.grib2"), inline_threshold=100)
        assert refs["templates"] == {"u": str(OUT / f"{name}.grib2")}, refs["templates"]
        refs["templates"] = {"u": f"{name}.grib2"}
        assert refs["refs"]["sst/0.0"] == ["{{u}}", 0, len(data)], refs["refs"]["sst/0.0"]
        text = json.dumps(refs, indent=1)
        assert str(OUT) not in text
        (OUT / f"{name}.kerchunk.json").write_text(text + "\n")
        f64 = GRIBCodec(var="sst", dtype="float64").decode(data)
        f32 = GRIBCodec(var="sst").decode(data)
        assert f64.dtype == np.float64 and f32.dtype == np.float32
        assert np.array_equal(np.isnan(f64), np.isnan(original.ravel()))
        gz(OUT / f"{name}.f64.gz", f64, "<f8")
        gz(OUT / f"{name}.f32.gz", f32, "<f4")
        ok = ~np.isnan(f64)
        diff = np.abs((f64[ok] - 273.15) - original.ravel()[ok].astype("f8"))
        manifest["messages"][name] = {
            "file": f"{name}.grib2", "length": len(data), "set": packing, "keys": keys_of(data),
            "references": f"{name}.kerchunk.json", "key": "sst/0.0",
            "zarray": json.loads(refs["refs"]["sst/.zarray"]),
            "expected": {"float64": f"{name}.f64.gz", "float32": f"{name}.f32.gz",
                         "nan": int((~ok).sum()), "min": float(f64[ok].min()), "max": float(f64[ok].max())},
            "max_abs_diff_from_original_minus_273.15": float(diff.max()),
        }
        if not coords_done:
            for c in ("latitude", "longitude"):
                a = GRIBCodec(var=c, dtype="float64").decode(data)
                gz(OUT / f"{c}.f64.gz", a, "<f8")
                manifest[c] = {"file": f"{c}.f64.gz", "first": float(a[0]), "last": float(a[-1])}
            coords_done = True
    simple = manifest["messages"]["sst-simple"]
    assert simple["keys"]["decimalScaleFactor"] == 2 and simple["keys"]["binaryScaleFactor"] == 0
    assert simple["max_abs_diff_from_original_minus_273.15"] < 1e-4, simple
    manifest["files"] = {q.name: q.stat().st_size for q in sorted(OUT.iterdir()) if q.name != "manifest.json"}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, allow_nan=False) + "\n")
    print(", ".join(f"{n} {s} B" for n, s in manifest["files"].items()))


if __name__ == "__main__":
    main()
