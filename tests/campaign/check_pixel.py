# A second, independent check of one campaign pixel (mpmath, not MPFR, none of deepscope's code):
# the count of pixel (i, j) of a size x size view, c = centre + (s/2)(2i + 1 - size, size - 2j - 1),
# s/2 = 2 / (zoom size), iterated at each of the given precisions (bits). The counts agreeing at
# all of them, far above the oracle's certifying precision, is what confirms a finding.
#   python3 tests/campaign/check_pixel.py RE IM ZOOM ITER I J SIZE [BITS,BITS,...]
import sys

import mpmath

re_, im_, zoom, it, i, j, size = sys.argv[1:8]
it, i, j, size = int(it), int(i), int(j), int(size)
for prec in [int(p) for p in (sys.argv[8] if len(sys.argv) > 8 else "300,600").split(",")]:
    mpmath.mp.prec = prec
    half = mpmath.mpf(2) / (mpmath.mpf(zoom) * size)
    kx, ky = 2 * i + 1 - size, size - 2 * j - 1
    c = mpmath.mpc(mpmath.mpf(re_) + half * kx, mpmath.mpf(im_) + half * ky)
    z = c
    n = it
    for k in range(1, it + 1):
        if z.real**2 + z.imag**2 > 4:
            n = k
            break
        z = z * z + c
    print(prec, "bits: count", n)
