#!/usr/bin/env python3
"""Converts a location (Kalles Fraktaler .kfr or deepscope .loc) to a Fraktaler-3 parameter .toml
for the CPU-peer benchmark of issue #48 (tools/peers/fraktaler3.sh builds F3).

usage: loc2f3.py LOCATION --size WxH --out F.toml [--exr-stem STEM] [--escape-radius R] [--iter N]

Keys written (F3 2.1, src/param.cc):
  [location] real, imag, zoom  -- copied as decimal strings (no rounding). F3's zoom has KF's and
      deepscope's meaning: the image height spans 4 / zoom (src/render.cc: pixel spacing is
      4 / (zoom * height)).
  [bailout] iterations          -- the file's iteration limit.
  [bailout] maximum_reference_iterations, maximum_perturb_iterations, maximum_bla_steps
      -- all set to the iteration limit. F3 defaults the last two to 1024 a pixel and stops a pixel
      there, marking it as not escaped even when it would escape later. Every perturbation step
      and every BLA step advances a pixel by at least one iteration, so with both caps at the
      iteration limit no pixel can be stopped by them before the limit itself.
  [bailout] escape_radius        -- 2 by default (F3 tests |z|^2 < R^2): deepscope's count is the
      first n with |z_n|^2 > 4, so counts are comparable. F3's own default is 625.
  [image] width, height, subsampling = 1, subframes = 1 -- one sample a pixel; with one subframe F3
      writes the raw channels (N0, N1 = the count, NF, T, DEX, DEY) to STEM.exr.
  [render] filename             -- STEM (F3 appends .exr).
Exit 2 with a message naming the field on bad input.
"""
import argparse
import re
import sys


def fail(msg):
    print(f"loc2f3: {msg}", file=sys.stderr)
    sys.exit(2)


DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def read_location(path):
    """Returns dict with re, im, zoom (strings) and iterations (int)."""
    try:
        text = open(path, encoding="latin-1").read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    fields = {}
    if path.endswith(".kfr"):
        names = {"Re": "re", "Im": "im", "Zoom": "zoom", "Iterations": "iterations"}
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() in names:
                fields[names[key.strip()]] = value.strip()
    else:
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            key, sep, value = line.partition("=")
            if sep and key.strip() in ("re", "im", "zoom", "iterations"):
                fields[key.strip()] = value.strip().strip('"')
    for key in ("re", "im", "zoom", "iterations"):
        if key not in fields:
            fail(f"{path}: field '{key}' missing")
        if not DECIMAL.match(fields[key]):
            fail(f"{path}: field '{key}' is not a decimal number: {fields[key][:40]!r}")
    try:
        iterations = int(float(fields["iterations"]))
    except ValueError:
        fail(f"{path}: field 'iterations' is not a number")
    if iterations < 1:
        fail(f"{path}: field 'iterations' must be at least 1")
    fields["iterations"] = iterations
    # "1.00e014" -> "1.00e14": MPFR reads either, but keep the toml tidy.
    m = DECIMAL.match(fields["zoom"])
    if m.group(2):
        fields["zoom"] = m.group(1) + "e" + str(int(m.group(2)[1:]))
    if float(m.group(1)) <= 0:
        fail(f"{path}: field 'zoom' must be positive")
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("location")
    ap.add_argument("--size", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--exr-stem", default="fraktaler-3")
    ap.add_argument("--escape-radius", type=float, default=2.0)
    ap.add_argument("--iter", type=int, default=None, help="override the file's iterations")
    a = ap.parse_args()
    m = re.match(r"^(\d+)x(\d+)$", a.size)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        fail(f"--size: expected WxH, got {a.size!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if a.escape_radius < 2:
        fail("--escape-radius: must be at least 2")
    loc = read_location(a.location)
    n = a.iter if a.iter is not None else loc["iterations"]
    if n < 1:
        fail("--iter: must be at least 1")
    toml = (
        f"# {a.location} for Fraktaler-3 (tools/peers/loc2f3.py)\n"
        "[location]\n"
        f'real = "{loc["re"]}"\n'
        f'imag = "{loc["im"]}"\n'
        f'zoom = "{loc["zoom"]}"\n'
        "[bailout]\n"
        f"iterations = {n}\n"
        f"maximum_reference_iterations = {n}\n"
        f"maximum_perturb_iterations = {n}\n"
        f"maximum_bla_steps = {n}\n"
        f"escape_radius = {a.escape_radius!r}\n"
        "[image]\n"
        f"width = {w}\n"
        f"height = {h}\n"
        "subsampling = 1\n"
        "subframes = 1\n"
        "[render]\n"
        f'filename = "{a.exr_stem}"\n'
    )
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(toml)
    import os
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
