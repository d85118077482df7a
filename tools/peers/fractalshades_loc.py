#!/usr/bin/env python3
"""Converts one of fractalshades' example scripts (G. Billotey, github.com/GBillotey/Fractalshades) into
our .loc (tests/data/formula/README.md): its x, y, dx, xy_ratio and max_iter, the model it builds,
and its zoom-parameter lines kept verbatim as comments.
usage: fractalshades_loc.py EXAMPLE.py COMMIT PATH > OUT.loc
  e.g. git -C Fractalshades show C:examples/batch_mode/20-perpendicular_burning_ship_Sierpinski.py > ex.py
       fractalshades_loc.py ex.py C examples/batch_mode/20-perpendicular_burning_ship_Sierpinski.py
Mapping (fractalshades' models/burning_ship.py): Burning Ship y' = 2|xy| - b, ours y' = 2|xy| + Im c, so
our c = x - iy; perpendicular y' = 2x|y| - b, ours y' = -2x|y| + Im c: the conjugate orbit at c = x + iy
(same |z_n|, same counts). zoom = 4 xy_ratio / dx (dx is its image width, our image height is 4 / zoom).
Its rotation and skew are not applied (formula views have square, unrotated pixels)."""
import re
import sys
from decimal import Decimal, getcontext


def field(text, name):
    m = re.search(r"^\s*" + name + r"\s*=\s*(.+?)\s*$", text, re.M)
    if not m:
        sys.exit(f"fractalshades_loc: no '{name} =' line in the example")
    return m.group(0).strip(), m.group(1).strip().rstrip(",").strip("'\"")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    text = open(sys.argv[1], encoding="utf-8").read()
    commit, path = sys.argv[2], sys.argv[3]
    if "Perturbation_perpendicular_burning_ship(" in text or 'flavor="Perpendicular burning ship"' in text:
        formula, negate = "perpendicular-burning-ship", False
    elif "Perturbation_burning_ship(" in text and "flavor=" not in text:
        formula, negate = "burning-ship", True
    else:
        sys.exit("fractalshades_loc: the example builds neither the Burning Ship nor the perpendicular one")
    lines = {}
    vals = {}
    for name in ("x", "y", "dx", "xy_ratio", "theta_deg", "max_iter"):
        lines[name], vals[name] = field(text, name)
    getcontext().prec = 60
    zoom = Decimal(4) * Decimal(vals["xy_ratio"]) / Decimal(vals["dx"])
    im = vals["y"]
    if negate:
        im = im[1:] if im.startswith("-") else "-" + im
    out = [f"# {formula} location from fractalshades (G. Billotey), {path} at commit",
           f"# {commit[:12]} of github.com/GBillotey/Fractalshades (MIT licence), converted by",
           "# tools/peers/fractalshades_loc.py. Its zoom-parameter lines, verbatim (long numbers cut after 80 characters):"]
    for name in ("x", "y", "dx", "xy_ratio", "theta_deg", "max_iter"):
        ln = lines[name]
        out.append("#   " + (ln if len(ln) <= 90 else ln[:88] + "...'"))
    out.append("# Im negated: its orbit is y' = 2|xy| - b with c = a + ib, ours y' = 2|xy| + Im c: our c = x - iy."
               if negate else
               "# c unchanged: its orbit y' = 2x|y| - b is the conjugate of ours (y' = -2x|y| + Im c) for our c = x + iy.")
    out.append("# zoom = 4 xy_ratio / dx; its rotation and skew are not applied (square, unrotated pixels).")
    out += [f"formula = {formula}", f"re = {vals['x']}", f"im = {im}", f"zoom = {zoom:.10e}",
            f"iterations = {int(vals['max_iter'])}"]
    sys.stdout.write("\n".join(out) + "\n")


main()
