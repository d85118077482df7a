#!/usr/bin/env python3
# Writes the deep perturbation locations of assets/locations (docs/perturbation.md) with mpmath:
#   misiurewicz-1eN.loc  the Misiurewicz point of preperiod 11, period 3 near -0.4844 + 0.6419i
#                        (Newton on z_14(c) = z_11(c)), at zoom 1eN;
#   minibrot-1eN.loc     the minibrot of lowest period within 10^-(N/2) of that point in the
#                        direction exp(0.7i) (ball period test, Newton on z_p(c) = 0), at a zoom
#                        where its size estimate (Heiland-Allen) spans an eighth of the image.
# Usage: python3 make_deep_locations.py [DEPTH ...]   (default 50 100 300 1000)
import sys
import mpmath
from mpmath import mpc, mpf

sys.set_int_max_str_digits(0)
SEED = ("-0.4843959562623775919128287421586067691596124435419865096507798028029960660414365868871991207499025159",
        "0.6418924099139518844354150775006524215199605374875397669595578755542089273055838652129049918350557796")


def misiurewicz(dps):
    mpmath.mp.dps = 100
    c = mpc(*SEED)
    prec = 100
    while True:
        prec = min(2 * prec, dps)
        mpmath.mp.dps = prec
        for _ in range(2):
            z = dz = mpc(0)
            for n in range(14):
                dz = 2 * z * dz + 1
                z = z * z + c
                if n + 1 == 11:
                    z11, dz11 = z, dz
            c -= (z - z11) / (dz - dz11)
        if prec >= dps:
            return c


def minibrot(m, depth):
    d = mpf(10) ** (-(depth // 2))
    c0 = m + d * mpmath.expj(0.7)
    z = dz = mpc(0)
    for p in range(1, 10**6):
        dz = 2 * z * dz + 1
        z = z * z + c0
        if abs(z) < d * abs(dz):
            break
    c = c0
    for _ in range(80):
        z = dz = mpc(0)
        for n in range(p):
            dz = 2 * z * dz + 1
            z = z * z + c
        step = z / dz
        c -= step
        if abs(step) < mpf(10) ** (-(2 * depth + 20)):
            break
    z, l, b = mpc(0), mpc(1), mpc(1)
    for i in range(1, p):
        z = z * z + c
        l = 2 * z * l
        b += 1 / l
    return c, p, abs(1 / (b * l * l))


def write(name, comment, c, digits, zoom, iters):
    with open(name, "w") as f:
        f.write(comment)
        f.write("re = %s\nim = %s\nzoom = %s\niterations = %d\nwidth = 1024\nheight = 1024\npalette = fire\n" %
                (mpmath.nstr(c.real, digits, strip_zeros=False, min_fixed=-mpmath.inf, max_fixed=mpmath.inf),
                 mpmath.nstr(c.imag, digits, strip_zeros=False, min_fixed=-mpmath.inf, max_fixed=mpmath.inf),
                 zoom, iters))


for depth in [int(a) for a in sys.argv[1:]] or [50, 100, 300, 1000]:
    m = misiurewicz(2 * depth + 80)
    c, p, size = minibrot(m, depth)
    zoom = mpmath.nstr(mpf(0.5) / size, 3, min_fixed=mpmath.inf)
    write("minibrot-%se%d.loc" % ("1", depth),
          "# A minibrot of period %d (size %s) beside the Misiurewicz point of preperiod 11, period 3\n"
          "# near -0.4844 + 0.6419i; written by make_deep_locations.py (docs/perturbation.md).\n"
          % (p, mpmath.nstr(size, 4)), c, depth + 40, zoom, 50 * p)
    print("minibrot 1e%d: period %d size %s zoom %s" % (depth, p, mpmath.nstr(size, 4), zoom))
