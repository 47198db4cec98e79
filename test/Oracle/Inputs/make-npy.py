#!/usr/bin/env python3
"""Writes small .npy files without NumPy: `make-npy.py DIR`.
  good/A.npy  float32 (8, 4), values i * 0.5 (a valid input)
  bad/A.npy   a truncated header
  shape/A.npy float32 (3, 3) (a valid file of the wrong shape)
  fortran/A.npy  fortran_order True"""
import os
import struct
import sys


def npy(path, descr, shape, payload, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join("%d, " % d for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload)


root = sys.argv[1]
npy(os.path.join(root, "good", "A.npy"), "<f4", (8, 4),
    b"".join(struct.pack("<f", i * 0.5) for i in range(32)))
os.makedirs(os.path.join(root, "bad"), exist_ok=True)
with open(os.path.join(root, "bad", "A.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\xff\x00{'descr'")
npy(os.path.join(root, "shape", "A.npy"), "<f4", (3, 3), b"\x00" * 36)
npy(os.path.join(root, "fortran", "A.npy"), "<f4", (8, 4), b"\x00" * 128, fortran=True)
