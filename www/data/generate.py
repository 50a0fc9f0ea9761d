"""Generate the demo's data (``www/data/real/``) from real netCDF files.

Sources: two files that Debian's ``r-cran-stars`` package ships in
``usr/lib/R/site-library/stars/nc/`` (the package is Apache-2.0; the data are NOAA's and
the U.S. government's, in the public domain):

* ``reduced.nc``: one day (1981-12-31) of NOAA OISST v2 on a 2-degree grid
  (90 x 180): sea-surface temperature, its anomaly and sea-ice concentration, stored as int16
  with ``scale_factor`` 0.01 and ``_FillValue`` -999 (land and open water are missing).
* ``bcsd_obs_1999.nc``: the 12 monthly fields of 1999 of gridded observed air temperature and
  precipitation (float32, ``_FillValue`` 1e20; the ocean is missing) over 33 x 81 cells of
  the south-eastern United States.

Each variable is written in the forms a user meets, each a zarr v3 array under
``real/<dataset>/<variable>/<form>.zarr``:

* ``original``: the values xarray decodes from the netCDF (float32, NaN where missing),
  written by zarr-python: the truth the page measures errors against.
* ``cf``: the netCDF's own CF packing as xarray writes it to zarr (int16 with
  ``scale_factor``, ``add_offset`` and ``_FillValue``; for the monthly fields, which the file
  does not pack, xarray packs them with the int16 encoding given in ``CF_PACKING``). The page
  reads it with ``getDecoded``; the reference is ``xr.open_zarr(..., mask_and_scale=True)``.
* ``scale_offset``: the same values as float64 through zarr v3 ``scale_offset`` +
  ``cast_value`` int16, the missing-value sentinel as a NaN ``scalar_map``, written by
  zarr-python (for OISST the stored integers are checked equal to the netCDF's own).
* ``uint8``: float64 repacked as uint8 with the codecs ``planPacking`` (this package, run in
  Node from ``dist/``) chooses for the variable's range, written by zarr-python.
* ``zfp``: the original float32 values through the zarr v3 ``zfp`` codec, reversible (zfp's
  lossy modes cannot hold NaN). zarr-python cannot write zfp: the chunks are
  ``zfpy.compress_numpy(chunk, write_header=False)`` under the ``original`` array's zarr.json
  with its codecs replaced, each decoded again by zfpy and checked.
* ``pcodec``: the original float32 values through numcodecs' ``pcodec`` array -> bytes codec
  (``numcodecs.pcodec``, lossless), written by zarr-python with ``PCodec()`` (numcodecs'
  defaults) as the serializer and no compressor, in the ``original`` array's chunks; zarr-python's
  read is checked equal, bit for bit, to the original's.

For ``zarr.get``-style reads the OISST grid is turned to -180..180 longitude (xarray's
``roll``) and both datasets to north-up rows.

``real/manifest.json`` records, per variable and form, the stored bytes and, per time step,
the SHA-256 of the reference values as little-endian float64 (zarr-python's read, xarray's
decoded read for ``cf``, zfpy's for ``zfp``, widened to float64), their NaN count, minimum and
maximum, and probe points (an ocean and a land cell with every form's reference value).

Requirements (versions asserted below): zarr 3.4.2 (with cast-value-rs), zfpy 1.0.1,
numcodecs 0.17.1, pcodec 1.1.0, xarray, netCDF4, numpy; Node with the package built
(``npm run build``)::

    .venv/bin/pip install "zarr==3.4.2" cast-value-rs "zfpy==1.0.1" "numcodecs==0.17.1" \
        "pcodec==1.1.0" xarray netCDF4 numpy
    .venv/bin/python www/data/generate.py            # downloads r-cran-stars with apt-get
    .venv/bin/python www/data/generate.py --nc DIR   # or: the directory holding the two files

The output is deterministic for given library versions. ``grib.py`` beside this script writes
the OISST ``sst`` as GRIB2 into ``real/oisst-grib/`` from the ``original`` array: run it after
this script, which clears ``real/``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr
import zarr
import zfpy
from zarr.codecs import BytesCodec, CastValue, ScaleOffset
from zarr.codecs.numcodecs import PCodec

assert zarr.__version__ == "3.4.2", f"need zarr==3.4.2, found {zarr.__version__}"
assert importlib.metadata.version("zfpy") == "1.0.1", "need zfpy==1.0.1"
assert importlib.metadata.version("numcodecs") == "0.17.1", "need numcodecs==0.17.1"
assert importlib.metadata.version("pcodec") == "1.1.0", "need pcodec==1.1.0"

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "real"

# How the monthly fields (float32 in their file) are packed as int16 for the cf and
# scale_offset forms: value = stored * scale_factor.
CF_PACKING = {"tas": 0.01, "pr": 0.1}
# Each variable's fixed colour scale (its units), and colour map.
SCALES = {
    "sst": (-2.0, 32.0, "sequential"),
    "anom": (-6.0, 6.0, "diverging"),
    "ice": (0.0, 1.0, "sequential"),
    "tas": (0.0, 30.0, "sequential"),
    "pr": (0.0, 500.0, "sequential"),
}
FORMS = ["original", "cf", "scale_offset", "uint8", "zfp", "pcodec"]


def stars_files(nc: Path | None) -> tuple[Path, str]:
    """The directory with the two netCDF files, and where they came from."""
    if nc is not None:
        return nc, f"netCDF files from {nc.name}/"
    tmp = Path(tempfile.mkdtemp())
    subprocess.run(["apt-get", "download", "r-cran-stars"], cwd=tmp, check=True)
    deb = next(tmp.glob("r-cran-stars_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp / "x")], check=True)
    return tmp / "x/usr/lib/R/site-library/stars/nc", f"Debian package {deb.name}"


def north_up(ds: xr.Dataset, lat: str) -> xr.Dataset:
    return ds.sortby(lat, ascending=False)


def load(nc_dir: Path) -> dict:
    """Both datasets, decoded by xarray, on the grids the page draws."""
    oisst = xr.open_dataset(nc_dir / "reduced.nc").isel(time=0, zlev=0)
    oisst = oisst.assign_coords(lon=((oisst.lon + 180) % 360) - 180).sortby("lon")
    oisst = north_up(oisst, "lat")
    bcsd = north_up(xr.open_dataset(nc_dir / "bcsd_obs_1999.nc"), "latitude")
    raw = xr.open_dataset(nc_dir / "reduced.nc", mask_and_scale=False).isel(time=0, zlev=0)
    raw = north_up(raw.assign_coords(lon=((raw.lon + 180) % 360) - 180).sortby("lon"), "lat")
    return {
        "oisst": {
            "ds": oisst, "raw": raw, "vars": ["sst", "anom", "ice"], "lat": "lat", "lon": "lon",
            "chunks": (45, 90), "zfp_chunks": (45, 90),
            "title": "NOAA OISST v2, one day, 2-degree grid",
            "time": [str(np.datetime_as_string(oisst.time.values, unit="D"))],
        },
        "bcsd": {
            "ds": bcsd, "raw": None, "vars": ["tas", "pr"], "lat": "latitude", "lon": "longitude",
            "chunks": (1, 33, 81), "zfp_chunks": (12, 33, 81),
            "title": "Gridded observed monthly climate, 1999, south-eastern United States",
            "time": [str(t)[:7] for t in np.datetime_as_string(bcsd.time.values, unit="D")],
        },
    }


def plan_uint8(lo: float, hi: float) -> dict:
    """planPacking's uint8 plan for the range [lo, hi], from the built package."""
    script = (
        "const { planPacking } = await import(process.argv[1]);"
        "const [lo, hi] = JSON.parse(process.argv[2]);"
        "process.stdout.write(JSON.stringify(await planPacking({ min: lo, max: hi }, { target: 'uint8' })));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script, (ROOT / "dist/index.js").as_uri(), json.dumps([lo, hi])],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout)


def create(path: Path, values: np.ndarray, chunks, filters=(), serializer=None, attributes=None, fill=np.nan):
    arr = zarr.create_array(
        store=str(path), shape=values.shape, chunks=chunks, dtype=values.dtype, fill_value=fill,
        filters=list(filters), serializer=serializer or BytesCodec(), compressors=None,
        attributes=attributes or {}, zarr_format=3,
    )
    arr[...] = values
    return arr


def stored_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and p.name != "zarr.json")


def write_zfp(path: Path, original: Path, values: np.ndarray, chunks) -> np.ndarray:
    """The original float32 array with the zfp codec (reversible), chunks by zfpy; the array
    as zfpy decodes the stored chunks."""
    meta = json.loads((original / "zarr.json").read_text())
    meta["codecs"] = [{"name": "zfp", "configuration": {"mode": "reversible"}}]
    meta["chunk_grid"]["configuration"]["chunk_shape"] = list(chunks)
    path.mkdir(parents=True)
    (path / "zarr.json").write_text(json.dumps(meta, indent=2))
    decoded = np.empty_like(values)
    grid = [range(0, n, c) for n, c in zip(values.shape, chunks)]
    for starts in np.array(np.meshgrid(*grid, indexing="ij")).reshape(len(chunks), -1).T:
        where = tuple(slice(s, s + c) for s, c in zip(starts, chunks))
        block = values[where]
        assert block.shape == tuple(chunks), "the demo's chunk shapes divide its arrays"
        block = np.ascontiguousarray(block)
        stream = zfpy.compress_numpy(block, write_header=False)
        back = zfpy._decompress(stream, zfpy.type_float, list(block.shape))
        assert back.reshape(block.shape).tobytes() == block.tobytes(), "zfp reversible round trip"
        key = path / "c" / "/".join(str(s // c) for s, c in zip(starts, chunks))
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(stream)
        decoded[where] = back
    return decoded


def per_time(values: np.ndarray, has_time: bool) -> list[dict]:
    steps = values if has_time else values[None]
    out = []
    for v in steps:
        v = np.ascontiguousarray(v, dtype="<f8")
        finite = v[~np.isnan(v)]
        out.append({
            "sha256": hashlib.sha256(v.tobytes()).hexdigest(),
            "nan": int(np.isnan(v).sum()),
            "min": float(finite.min()), "max": float(finite.max()),
        })
    return out


def variable(d: dict, name: str) -> tuple[dict, dict]:
    ds, has_time = d["ds"], "time" in d["ds"][name].dims
    da = ds[name]
    values = da.values.astype(np.float32)
    vdir = OUT / d["key"] / name
    refs, forms = {}, {}

    # original
    path = vdir / "original.zarr"
    create(path, values, d["chunks"], attributes={"units": da.attrs.get("units", ""), "long_name": da.attrs.get("long_name", name)})
    original = zarr.open_array(str(path), mode="r")[...]
    refs["original"] = original.astype(np.float64)

    # cf: xarray's own writing of the CF packing
    path = vdir / "cf.zarr"
    cf = ds[[name]].drop_vars([c for c in ds[[name]].coords], errors="ignore")
    encoding = {k: v for k, v in da.encoding.items() if k in ("dtype", "scale_factor", "add_offset", "_FillValue", "missing_value")}
    if name in CF_PACKING:
        encoding = {"dtype": "int16", "scale_factor": np.float32(CF_PACKING[name]), "add_offset": np.float32(0), "_FillValue": np.int16(-32768)}
    encoding["chunks"] = d["chunks"]
    encoding["compressors"] = None
    cf.to_zarr(path, zarr_format=3, consolidated=False, encoding={name: encoding}, mode="w")
    refs["cf"] = xr.open_zarr(path, consolidated=False, mask_and_scale=True)[name].values.astype(np.float64)
    stored = zarr.open_group(str(path), mode="r")[name]
    forms["cf"] = {"path": f"{d['key']}/{name}/cf.zarr/{name}", "stored_dtype": str(stored.dtype)}
    if d["raw"] is not None:
        assert np.array_equal(stored[...], d["raw"][name].values), "xarray kept the netCDF's integers"

    # scale_offset + cast_value int16, the sentinel as NaN
    if name in CF_PACKING:
        scale, sentinel = round(1 / CF_PACKING[name]), -32768
    else:
        scale, sentinel = round(1 / float(da.encoding["scale_factor"])), int(da.encoding["_FillValue"])
    path = vdir / "scale_offset.zarr"
    so = create(
        path, values.astype(np.float64), d["chunks"],
        filters=[
            ScaleOffset(offset=0, scale=scale),
            CastValue(data_type="int16", rounding="nearest-even", out_of_range="clamp",
                      scalar_map={"encode": [["NaN", sentinel]], "decode": [[sentinel, "NaN"]]}),
        ],
        attributes={"units": da.attrs.get("units", "")},
    )
    refs["scale_offset"] = so[...]
    if d["raw"] is not None:
        ints = np.where(np.isnan(values), sentinel, np.round(values.astype(np.float64) * scale)).astype(np.int16)
        assert np.array_equal(ints, d["raw"][name].values), "scale_offset stores the netCDF's integers"

    # uint8, planned by planPacking for the variable's range
    finite = values[~np.isnan(values)]
    plan = plan_uint8(float(finite.min()), float(finite.max()))
    path = vdir / "uint8.zarr"
    codecs = plan["codecs"]
    assert plan["data_type"] == "float64" and plan["fill_value"] == "NaN"
    create(path, values.astype(np.float64), d["chunks"], filters=codecs[:-1], serializer=codecs[-1],
           attributes={**plan["attributes"], "units": da.attrs.get("units", "")})
    refs["uint8"] = zarr.open_array(str(path), mode="r")[...]

    # zfp, reversible, of the original float32 values
    path = vdir / "zfp.zarr"
    refs["zfp"] = write_zfp(path, vdir / "original.zarr", values, d["zfp_chunks"]).astype(np.float64)

    # pcodec (numcodecs.pcodec, numcodecs' defaults) of the original float32 values: lossless
    path = vdir / "pcodec.zarr"
    create(path, values, d["chunks"], serializer=PCodec(), attributes={"units": da.attrs.get("units", "")})
    pcodec = zarr.open_array(str(path), mode="r")[...]
    assert pcodec.dtype == original.dtype and pcodec.tobytes() == original.tobytes(), "pcodec is lossless"
    refs["pcodec"] = pcodec.astype(np.float64)

    n = int(values.size)
    for form in FORMS:
        p = vdir / f"{form}.zarr"
        entry = forms.setdefault(form, {"path": f"{d['key']}/{name}/{form}.zarr"})
        entry["stored_bytes"] = stored_bytes(p)
        entry["values"] = n
        entry["per_time"] = per_time(refs[form], has_time)
    forms["uint8"]["plan"] = {k: plan[k] for k in ("scale", "offset", "max_abs_error", "sentinels")}
    forms["scale_offset"]["scale"] = scale
    forms["scale_offset"]["sentinel"] = sentinel

    lo, hi, cmap = SCALES[name]
    info = {
        "long_name": da.attrs.get("long_name", name), "units": da.attrs.get("units", ""),
        "scale": [lo, hi], "colormap": cmap, "has_time": has_time, "forms": forms,
    }
    return info, refs


def probes(d: dict, name: str, refs: dict) -> list[dict]:
    """An ocean (or valued) cell and a missing cell at time 0, every form's value there."""
    v = refs["original"][0] if d["ds"][name].ndim == 3 else refs["original"]
    lat, lon = d["ds"][d["lat"]].values, d["ds"][d["lon"]].values
    out = []
    for want_missing in (False, True):
        ii, jj = np.nonzero(np.isnan(v) == want_missing)
        k = len(ii) // 2
        i, j = int(ii[k]), int(jj[k])
        vals = {}
        for form, r in refs.items():
            x = (r[0] if r.ndim == 3 else r)[i, j]
            vals[form] = None if np.isnan(x) else float(x)
        out.append({"t": 0, "i": i, "j": j, "lat": float(lat[i]), "lon": float(lon[j]), "missing": want_missing, "values": vals})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nc", type=Path, help="the directory with reduced.nc and bcsd_obs_1999.nc")
    args = ap.parse_args()
    nc_dir, source = stars_files(args.nc)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    data = load(nc_dir)
    manifest = {"source": source, "datasets": {}}
    for key, d in data.items():
        d["key"] = key
        ds = d["ds"]
        entry = {
            "title": d["title"], "time": d["time"],
            "lat": [float(x) for x in ds[d["lat"]].values], "lon": [float(x) for x in ds[d["lon"]].values],
            "variables": {},
        }
        for name in d["vars"]:
            info, refs = variable(d, name)
            info["probes"] = probes(d, name, refs)
            entry["variables"][name] = info
            print(f"{key}/{name}: " + ", ".join(f"{f} {info['forms'][f]['stored_bytes']} B" for f in FORMS))
        manifest["datasets"][key] = entry
    manifest["versions"] = {
        "zarr": zarr.__version__, "zfpy": importlib.metadata.version("zfpy"),
        "xarray": xr.__version__, "netCDF4": importlib.metadata.version("netCDF4"), "numpy": np.__version__,
        "numcodecs": importlib.metadata.version("numcodecs"), "pcodec": importlib.metadata.version("pcodec"),
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
