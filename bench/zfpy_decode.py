"""Times zfpy 1.0.1 (the zfp C library) decoding headerless float32 streams.

Usage: python zfpy_decode.py JOBS_JSON ROUNDS
JOBS_JSON: a list of {"file", "shape" (C order), "tolerance"}. Prints, per job, each round's
milliseconds, their median and the SHA-256 of the decoded bytes, as a JSON list.
"""
import hashlib
import json
import statistics
import sys
import time

import zfpy

jobs, rounds = json.loads(sys.argv[1]), int(sys.argv[2])
results = []
for job in jobs:
    stream = open(job["file"], "rb").read()
    decode = lambda: zfpy._decompress(stream, zfpy.type_float, job["shape"], tolerance=job["tolerance"])
    # A fresh process's first decodes are slower (its allocator and pages not yet warm):
    # untimed, as the package's are.
    for _ in range(5):
        out = decode()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = decode()
        times.append((time.perf_counter() - t0) * 1000)
    results.append({"times_ms": times, "median_ms": statistics.median(times), "sha256": hashlib.sha256(out.tobytes()).hexdigest()})
print(json.dumps(results))
