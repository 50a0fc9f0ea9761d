"""GRIB2 messages for the GRIB benchmarks: two fields in every packing, one message a file.

Usage: ``python bench/grib_files.py OUT_DIR``. Needs Python 3.12 with the versions
tests/fixtures/grib/make.py pins: ``pip install eccodes==2.50.1 eccodeslib==2.50.0.33
numpy==2.5.5`` (ecCodes 2.50.0 and its built-in samples; no network at run time).

Writes into OUT_DIR, by ecCodes from its sample ``regular_ll_sfc_grib2``:

- ``global-<packing>.grib2``: 2 m temperature on the 0.25 degree global grid, 721 x 1440
  (latitude 90 to -90, longitude 0 to 359.75, as GFS and ECMWF's open data), a smooth field plus
  noise, in hundredths of a kelvin.
- ``hrrr-<packing>.grib2``: 2 m temperature on HRRR's Lambert conformal grid, 1799 x 1059
  (template 3.30, its projection keys and first point), smooth plus noise, hundredths of a
  kelvin.

Each in every packing (the keys set, in order, after ``packingType``):

- ``simple``: grid_simple (5.0), bitsPerValue 16 (ECMWF's way);
- ``complex``: grid_complex (5.2), optimizeScaleFactor 1, decimalScaleFactor 1, bitsPerValue
  16 (a cap: ecCodes finds the bits; NCEP's way);
- ``complex-sd``: grid_complex_spatial_differencing (5.3), orderOfSpatialDifferencing 2, as
  ``complex`` (GFS's and HRRR's packing);
- ``ieee32``: grid_ieee (5.4), precision 1;
- ``jpeg``: grid_jpeg (5.40, lossless), decimalScaleFactor 1;
- ``png``: grid_png (5.41), bitsPerValue 16, decimalScaleFactor 1;
- ``ccsds``: grid_ccsds (5.42), bitsPerValue 16 (ECMWF's way).

And ``index.json``: one entry a file (file, grid, packing, bytes, and ecCodes' keys as read
back: packingType, numberOfValues, Ni/Nj or Nx/Ny, bitsPerValue, decimalScaleFactor,
binaryScaleFactor). The output is deterministic; files already there are written again.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import eccodes as ec
import numpy as np

GRIDS = {
    "global": {
        "Ni": 1440, "Nj": 721,
        "latitudeOfFirstGridPointInDegrees": 90.0, "longitudeOfFirstGridPointInDegrees": 0.0,
        "latitudeOfLastGridPointInDegrees": -90.0, "longitudeOfLastGridPointInDegrees": 359.75,
        "iDirectionIncrementInDegrees": 0.25, "jDirectionIncrementInDegrees": 0.25,
    },
    "hrrr": {
        "shapeOfTheEarth": 6, "Nx": 1799, "Ny": 1059,
        "latitudeOfFirstGridPointInDegrees": 21.138123, "longitudeOfFirstGridPointInDegrees": 237.280472,
        "resolutionAndComponentFlags": 8, "LaDInDegrees": 38.5, "LoVInDegrees": 262.5,
        "DxInMetres": 3000, "DyInMetres": 3000, "projectionCentreFlag": 0, "scanningMode": 64,
        "Latin1InDegrees": 38.5, "Latin2InDegrees": 38.5,
        "latitudeOfSouthernPoleInDegrees": -90, "longitudeOfSouthernPoleInDegrees": 0,
    },
}
PACKINGS = {
    "simple": {"packingType": "grid_simple", "bitsPerValue": 16},
    "complex": {"packingType": "grid_complex", "optimizeScaleFactor": 1, "decimalScaleFactor": 1, "bitsPerValue": 16},
    "complex-sd": {"packingType": "grid_complex_spatial_differencing", "orderOfSpatialDifferencing": 2,
                   "optimizeScaleFactor": 1, "decimalScaleFactor": 1, "bitsPerValue": 16},
    "ieee32": {"packingType": "grid_ieee", "precision": 1},
    "jpeg": {"packingType": "grid_jpeg", "decimalScaleFactor": 1},
    "png": {"packingType": "grid_png", "bitsPerValue": 16, "decimalScaleFactor": 1},
    "ccsds": {"packingType": "grid_ccsds", "bitsPerValue": 16},
}
READ = ["packingType", "numberOfValues", "Ni", "Nj", "Nx", "Ny", "bitsPerValue", "decimalScaleFactor",
        "binaryScaleFactor"]


def field(grid: str) -> np.ndarray:
    """2 m temperature (K, hundredths) in the message's point order, 2-D."""
    rng = np.random.default_rng({"global": 25, "hrrr": 3}[grid])
    if grid == "global":
        lat = np.linspace(90.0, -90.0, 721)[:, None]
        lon = (np.arange(1440) * 0.25)[None, :]
        la, lo = np.deg2rad(lat), np.deg2rad(lon)
        v = (302.0 - 78.0 * np.sin(la) ** 2 + 5.0 * np.sin(2 * lo + 0.4) * np.cos(la)
             + 2.5 * np.sin(3 * lo + 2 * la) + 1.2 * np.sin(17 * lo) * np.cos(11 * la)
             + rng.normal(0.0, 0.4, (721, 1440)))
    else:
        j = np.arange(1059)[:, None] / 1058.0
        i = np.arange(1799)[None, :] / 1798.0
        v = (296.0 - 18.0 * j + 4.0 * np.sin(2 * np.pi * i) * np.cos(np.pi * j)
             + 2.0 * np.sin(23 * i + 7 * j) + 1.0 * np.cos(41 * j) + rng.normal(0.0, 0.3, (1059, 1799)))
    return np.round(v, 2)


def write(grid: str, packing: dict, values: np.ndarray) -> bytes:
    h = ec.codes_grib_new_from_samples("regular_ll_sfc_grib2")
    try:
        ec.codes_set(h, "tablesVersion", 31)
        ec.codes_set_key_vals(h, {"dataDate": 20240115, "dataTime": 0})
        if grid == "hrrr":
            ec.codes_set(h, "centre", 7)
            ec.codes_set(h, "gridDefinitionTemplateNumber", 30)
        for k, v in GRIDS[grid].items():
            ec.codes_set(h, k, v)
        ec.codes_set(h, "shortName", "2t")
        pk = dict(packing)
        ec.codes_set(h, "packingType", pk.pop("packingType"))
        for k, v in pk.items():
            ec.codes_set(h, k, v)
        ec.codes_set_values(h, values.ravel())
        return ec.codes_get_message(h)
    finally:
        ec.codes_release(h)


def read_keys(data: bytes) -> dict:
    h = ec.codes_new_from_message(data)
    try:
        return {k: ec.codes_get(h, k) for k in READ if ec.codes_is_defined(h, k)}
    finally:
        ec.codes_release(h)


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for grid in GRIDS:
        values = field(grid)
        for name, packing in PACKINGS.items():
            t0 = time.perf_counter()
            data = write(grid, packing, values)
            fname = f"{grid}-{name}.grib2"
            (out / fname).write_bytes(data)
            keys = read_keys(data)
            assert keys["packingType"] == packing["packingType"], keys
            index.append({"file": fname, "grid": grid, "packing": name, "bytes": len(data), **keys})
            print(f"{fname}: {len(data)} bytes, {keys}, written in {time.perf_counter() - t0:.1f} s", flush=True)
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
