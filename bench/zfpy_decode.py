"""Times zfpy 1.0.1 (the zfp C library) decoding a headerless float32 stream.

Usage: python zfpy_decode.py STREAM_FILE NY NX TOLERANCE ROUNDS
Prints the median milliseconds and the SHA-256 of the decoded bytes as JSON.
"""
import hashlib
import json
import statistics
import sys
import time

import zfpy

path, ny, nx, tolerance, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
stream = open(path, "rb").read()
out = zfpy._decompress(stream, zfpy.type_float, [ny, nx], tolerance=tolerance)
times = []
for _ in range(rounds):
    t0 = time.perf_counter()
    out = zfpy._decompress(stream, zfpy.type_float, [ny, nx], tolerance=tolerance)
    times.append((time.perf_counter() - t0) * 1000)
print(json.dumps({"median_ms": statistics.median(times), "sha256": hashlib.sha256(out.tobytes()).hexdigest()}))
