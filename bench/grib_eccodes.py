"""Decode times of ecCodes and gribberish for the messages bench/grib_files.py writes.

Usage: ``python bench/grib_eccodes.py DIR [RUNS]`` (DIR holds grib_files.py's output and its
``index.json``; RUNS, default 7, at least 7). Needs Python 3.12 with ``eccodes==2.50.1
eccodeslib==2.50.0.33 gribberish==1.9.0 numpy==2.5.5``.

For each message (one a file), from its bytes in memory: the median of RUNS timings, after one
untimed warm-up, of

- ecCodes: ``codes_new_from_message(bytes)`` + ``codes_get_values`` + ``codes_release``;
- gribberish: ``parse_grib_array(bytes, 0)``.

Single-threaded: the process is pinned to one CPU and the thread pools that either may start
(Rayon, OpenMP, OpenJPEG) are set to one thread before they load. Prints one JSON line a message:
``{"file", "packing", "eccodes_ms", "gribberish_ms", "values", "sha256"}`` (``sha256``: of
ecCodes' values as little-endian float64, which the JavaScript side checks its own against) (``gribberish_ms`` null, with
``gribberish_error``, where gribberish cannot decode the message, as for grid_ieee).
"""

from __future__ import annotations

import os

for _v in ("RAYON_NUM_THREADS", "OMP_NUM_THREADS", "OPJ_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_v] = "1"
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

import hashlib  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import eccodes as ec  # noqa: E402
import gribberish  # noqa: E402


def eccodes_decode(data: bytes):
    h = ec.codes_new_from_message(data)
    try:
        return ec.codes_get_values(h)
    finally:
        ec.codes_release(h)


def gribberish_decode(data: bytes):
    return gribberish.parse_grib_array(data, 0)


def median_ms(fn, data: bytes, runs: int) -> float:
    fn(data)  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(data)
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def main() -> None:
    folder = Path(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    assert runs >= 7, "at least 7 runs"
    for entry in json.loads((folder / "index.json").read_text()):
        data = (folder / entry["file"]).read_bytes()
        decoded = eccodes_decode(data)
        values = len(decoded)
        digest = hashlib.sha256(decoded.astype("<f8").tobytes()).hexdigest()
        row = {"file": entry["file"], "packing": entry["packing"], "eccodes_ms": round(median_ms(eccodes_decode, data, runs), 3)}
        try:
            row["gribberish_ms"] = round(median_ms(gribberish_decode, data, runs), 3)
        except Exception as e:  # noqa: BLE001
            row["gribberish_ms"] = None
            row["gribberish_error"] = f"{type(e).__name__}: {e}"
        row["values"] = values
        row["sha256"] = digest
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
