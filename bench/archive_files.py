"""netCDF4 archives and their reference sets for bench/archives.mjs.

Usage: ``python bench/archive_files.py OUT_DIR N`` (bench/archives.mjs runs it on first use, with
BENCH_PYTHON). Needs Python 3.12 with the versions tests/fixtures/archives/make.py pins:
``pip install numpy==2.5.5 netCDF4==1.7.5.1.post1 kerchunk==0.2.10 "virtualizarr[hdf]==2.8.0"
xarray==2026.9.0 zarr==3.4.2 numcodecs==0.17.1 fsspec==2026.9.0 ujson==6.1.0 imagecodecs
imagecodecs-numcodecs==2024.6.1 obstore==0.12.1``.

Writes into OUT_DIR, by netCDF4-python, N files shaped like NOAA's OISST v2.1 daily files
(``oisst-01.nc`` ...): time 1, lat 720, lon 1440; ``sst`` int16 in chunks (1, 360, 720) and
``anom`` int16 in chunks (1, 90, 90) (128 chunks a file), both with float32 scale_factor 0.01,
add_offset 0, _FillValue -999 and zlib level 4 + shuffle, as OISST's are; smooth fields with
noise and land. Then the reference sets, every file URL written as ``{{u}}<file name>`` (the
benchmark points the template ``u`` at its server): ``pair-kerchunk.json`` (kerchunk 0.2.10:
SingleHdf5ToZarr of the first two files, MultiZarrToZarr along time), ``pair-virtualizarr.json``
(VirtualiZarr 2.8.0's HDF parser, concatenated along time, ``to_kerchunk(format="json")``) and
``series-kerchunk.json`` (kerchunk, all N files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import kerchunk.combine
import kerchunk.hdf
import netCDF4
import numpy as np
import xarray as xr
from obspec_utils.registry import ObjectStoreRegistry
from obstore.store import LocalStore
from virtualizarr import open_virtual_dataset
from virtualizarr.parsers import HDFParser

NLAT, NLON = 720, 1440
LAT = np.arange(NLAT, dtype="f4") * 0.25 - 89.875
LON = np.arange(NLON, dtype="f4") * 0.25 + 0.125
FILL = np.int16(-999)
CHUNKS = {"sst": (1, 360, 720), "anom": (1, 90, 90)}


def fields(day: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1000 + day)
    la = np.deg2rad(LAT.astype("f8"))[:, None]
    lo = np.deg2rad(LON.astype("f8"))[None, :]
    sst = 29.0 * np.cos(la) ** 2 - 1.8 + 1.2 * np.sin(3 * lo + 0.3 * day) * np.cos(2 * la) + rng.normal(0.0, 0.03, (NLAT, NLON))
    anom = 1.5 * np.sin(2 * lo + 0.5 * day) * np.cos(la) * np.sin(3 * la) + 0.6 * np.cos(5 * lo + 4 * la) + rng.normal(0.0, 0.05, (NLAT, NLON))
    land = (np.abs(np.sin(2 * lo) * np.cos(3 * la)) > 0.8) & (np.abs(la) < 1.2)
    out = {}
    for name, v in (("sst", sst), ("anom", anom)):
        raw = np.round(v / 0.01).astype("i2")
        raw[land] = FILL
        out[name] = raw[None]
    return out


def write(path: Path, day: int) -> None:
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.createDimension("time", None)
        ds.createDimension("lat", NLAT)
        ds.createDimension("lon", NLON)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 1978-01-01"
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat.units = "degrees_north"
        lon = ds.createVariable("lon", "f4", ("lon",))
        lon.units = "degrees_east"
        lat[:] = LAT
        lon[:] = LON
        t[0] = 16800 + day
        raw = fields(day)
        for name, chunks in CHUNKS.items():
            v = ds.createVariable(name, "i2", ("time", "lat", "lon"), zlib=True, complevel=4, shuffle=True, chunksizes=chunks, fill_value=FILL)
            v.setncattr("scale_factor", np.float32(0.01))
            v.setncattr("add_offset", np.float32(0.0))
            v.set_auto_maskandscale(False)
            v[:] = raw[name]


def templated(refs: dict, out: Path) -> dict:
    """`refs` with every file URL written as {{u}}<its name>."""
    def url(u: str) -> str:
        name = Path(u.replace("file://", "")).name
        assert (out / name).exists(), u
        return "{{u}}" + name
    new = {k: v for k, v in refs.items() if k != "refs"}
    new["version"] = 1
    new["templates"] = {**refs.get("templates", {}), "u": ""}
    new["refs"] = {k: ([url(v[0]), *v[1:]] if isinstance(v, list) else v) for k, v in refs["refs"].items()}
    return new


def main() -> None:
    out, n = Path(sys.argv[1]).resolve(), int(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"oisst-{i + 1:02d}.nc" for i in range(n)]
    for i, p in enumerate(paths):
        if not p.exists():
            write(p, i)
    singles = [kerchunk.hdf.SingleHdf5ToZarr(str(p), inline_threshold=300).translate() for p in paths]

    def combined(parts):
        return kerchunk.combine.MultiZarrToZarr(
            [json.loads(json.dumps(s)) for s in parts], concat_dims=["time"], identical_dims=["lat", "lon"],
            remote_protocol="file", inline_threshold=300,
        ).translate()

    (out / "pair-kerchunk.json").write_text(json.dumps(templated(combined(singles[:2]), out)))
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    vds = [open_virtual_dataset(url="file://" + str(p), registry=registry, parser=HDFParser()) for p in paths[:2]]
    tmp = out / "pair-virtualizarr.tmp.json"
    xr.concat(vds, dim="time", coords="minimal", compat="override").vz.to_kerchunk(str(tmp), format="json")
    (out / "pair-virtualizarr.json").write_text(json.dumps(templated(json.loads(tmp.read_text()), out)))
    tmp.unlink()
    # (Written last: bench/archives.mjs takes its presence for a finished data set.)
    (out / "series-kerchunk.json").write_text(json.dumps(templated(combined(singles), out)))


if __name__ == "__main__":
    main()
