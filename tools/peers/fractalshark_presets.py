#!/usr/bin/env python3
"""Turn FractalShark's preset views into deepscope location files (issue #42).

FractalShark (https://github.com/mattsaccount364/FractalShark, GPLv3) keeps its preset views in
FractalSharkLib/FractalViewPresets.cpp, a switch over the view number whose cases set a bounding
box (minX, minY, maxX, maxY), an iteration count and a few render settings. This script reads that
file as data (it parses it; nothing of FractalShark is compiled, run or copied into deepscope) and
writes one location file per case, viewNN.loc, in our own format (app/io/location.cpp: re, im, zoom,
iterations, width, height).

Usage:
    python3 tools/peers/fractalshark_presets.py PATH/TO/FractalViewPresets.cpp
        [--out assets/locations/fractalshark] [--include-dir DIR] [--commit SHA]
        [--default-iterations N] [--width 1920 --height 1080] [--max-bytes 2000000]

No network access: the .cpp is given on the command line. Cases that #include a header
(LargeCoords30.h, LargeCoords32.h) need it in --include-dir (default: the .cpp's folder).
FractalShark's default iteration count (the defaultIterations argument, used by a case that sets
none) is Fractal::DefaultIterations in FractalSharkLib/Fractal.h: it is read from Fractal.h in the
include folder when there, else --default-iterations (default 8192 = 256 * 32, its value at the
commit this was written against).

How a preset becomes a centre and zoom
--------------------------------------
* A case gives either the box's four coordinates as decimal strings, or a point and a zoom factor
  through PointZoomBBConverter, whose box is point +- 2/zoom in both axes (a 4/zoom square).
* Fractal::View then fits the box to the window (PointZoomBBConverter::SquareAspectRatio): the box
  is widened in x or in y, about its centre, until its aspect is the window's, so the whole box
  stays visible. The centre is unchanged: (min + max)/2, computed here exactly in decimal.
* deepscope's view is 4/zoom high (docs/mandelbrot.md), FractalShark's zoom factor is 4/(maxY-minY)
  of the fitted box: the two zooms are the same number. At the window size written in the file
  (--width x --height, 1920x1080 by default) the fitted height is max(dY, dX * H/W), so
  zoom = 4 / max(dY, dX * H/W). For a point-and-zoom case the box is square and the window is wider
  than high, so zoom is FractalShark's own zoom string, and the centre its own point, unchanged.
* Case 30 gives its point as the raw GMP mpf limbs of LargeCoords30.h (strXHex/strYHex, read by
  Hex64StringToMpf_Exact); they are converted to decimal exactly (a binary fraction is a finite
  decimal).

Each file's header comment names the source (repository, path, commit), the case, FractalShark's
comments in that case, the zoom and iteration count, and what FractalShark sets besides (GPU
antialiasing, 64-bit iteration counts, LA defaults, compression error, a warning).
"""
import argparse
import decimal
import math
import os
import re
import sys

REPO = "mattsaccount364/FractalShark"
PATH = "FractalSharkLib/FractalViewPresets.cpp"
FALLBACK_DEFAULT_ITERATIONS = 8192  # Fractal.h: static constexpr IterTypeFull DefaultIterations = 256 * 32;


class ParseError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# A small C++ lexer: enough for the preset switch (comments, string literals, numbers with digit
# separators and suffixes, identifiers, punctuation). Adjacent string literals are concatenated.
# ---------------------------------------------------------------------------------------------
TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<pp>\#[^\n]*)
  | (?P<string>L?"(?:[^"\\\n]|\\.)*")
  | (?P<number>\d[\d']*(?:\.\d*)?(?:[eE][+-]?\d+)?[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<scope>::)
  | (?P<punct>[{}()\[\];,=.*&<>+\-/!~?:%^|])
    """,
    re.S | re.X,
)


def lex(text):
    """Tokens (kind, value, line) and comments (line, text)."""
    toks, comments = [], []
    pos, line = 0, 1
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise ParseError("line %d: cannot read %r" % (line, text[pos:pos + 20]))
        kind, val = m.lastgroup, m.group()
        if kind == "lcomment":
            comments.append((line, val[2:].lstrip("/").strip()))
        elif kind == "bcomment":
            comments.append((line, val[2:-2].strip()))
        elif kind == "string":
            s = val[1:-1] if val[0] == '"' else val[2:-1]
            if "\\" in s:
                s = bytes(s, "utf-8").decode("unicode_escape")
            if toks and toks[-1][0] == "string":
                toks[-1] = ("string", toks[-1][1] + s, toks[-1][2])
            else:
                toks.append(("string", s, line))
        elif kind == "pp":
            toks.append(("pp", val, line))
        elif kind != "ws":
            toks.append((kind, val, line))
        line += val.count("\n")
        pos = m.end()
    return toks, comments


def parse_int(tok):
    v = tok.replace("'", "").rstrip("uUlL")
    if not re.fullmatch(r"\d+", v):
        raise ParseError("not an integer: %s" % tok)
    return int(v)


# ---------------------------------------------------------------------------------------------
# Headers the cases #include: `const char *NAME = "..." "...";`
# ---------------------------------------------------------------------------------------------
def header_strings(path):
    with open(path, encoding="utf-8-sig") as f:
        toks, _ = lex(f.read())
    out = {}
    toks = [t for t in toks if t[0] != "pp"]
    for i, t in enumerate(toks):
        if t == ("punct", "=", t[2]) and i >= 1 and toks[i - 1][0] == "ident" and i + 1 < len(toks) \
                and toks[i + 1][0] == "string":
            out[toks[i - 1][1]] = toks[i + 1][1]
    return out


# ---------------------------------------------------------------------------------------------
# Exact numbers
# ---------------------------------------------------------------------------------------------
def ctx_for(digits):
    return decimal.Context(prec=digits + 20, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                           traps=[decimal.Inexact, decimal.InvalidOperation, decimal.Overflow])


def dec_of(s):
    s = s.strip()
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
        raise ParseError("not a decimal number: %r" % (s[:60] + ("..." if len(s) > 60 else "")))
    return decimal.Decimal(s)


def ndigits(d):
    return len(d.as_tuple().digits)


def plain(d):
    """A Decimal as a plain decimal string (no exponent, no trailing fractional zeros)."""
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    return s


def sci(d, sig=21):
    """1.234...e+456 with sig significant digits (rounded half even)."""
    c = decimal.Context(prec=sig, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    r = c.plus(d)
    t = r.as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    exp = t.exponent + len(t.digits) - 1
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return "%s%se%+d" % ("-" if t.sign else "", mant, exp)


def short_sci(z):
    """1.23e456, as the README shows zooms."""
    m, e = sci(z, 3).split("e")
    return "%.2fe%d" % (float(m), int(e))


def mpf_hex_to_decimal(s):
    """The exact value of FractalShark's MpfToHex64StringInvertable text: '<+|-> limbs: N
    actualLimbsUsed: M limbs(base16): 0x.. (N limbs, least significant first) e: E', a GMP mpf
    whose value is sum_{i<|M|} d[i] * 2^(64 (i - |M| + E))."""
    m = re.fullmatch(r"\s*([+-])\s*limbs:\s*(\d+)\s+actualLimbsUsed:\s*(-?\d+)\s+(?:limbs\(base16\):\s*)?"
                     r"((?:0[xX][0-9A-Fa-f]+\s+)+)e:?\s*(-?\d+)\s*", s)
    if not m:
        raise ParseError("hex mpf string not in the '+ limbs: N actualLimbsUsed: M limbs(base16): "
                         "0x... e: E' form")
    sign, n, used, limbs, exp = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4).split(), \
        int(m.group(5))
    if len(limbs) != n:
        raise ParseError("hex mpf string has %d limbs, says %d" % (len(limbs), n))
    if (sign == "-") != (used < 0):
        raise ParseError("hex mpf string: sign and actualLimbsUsed disagree")
    used = abs(used)
    if used > n:
        raise ParseError("hex mpf string uses more limbs than it has")
    words = [int(x, 16) for x in limbs[:used]]  # least significant first
    while words and words[-1] == 0:  # MpfNormalize: high zero limbs drop, the value is the same
        words.pop()
        exp -= 1
    if not words:
        return decimal.Decimal(0)
    big = 0
    for w in reversed(words):
        big = (big << 64) | w
    shift = 64 * (exp - len(words))  # value = big * 2^shift
    sys.set_int_max_str_digits(0)
    if shift >= 0:
        v = big << shift
        c = ctx_for(len(str(v)))
        return c.create_decimal(("-" if sign == "-" else "") + str(v))
    # big * 2^-k = big * 5^k / 10^k, exact. The integer is made decimal by halves (libmpdec's
    # multiplication is fast where Python's int-to-str is quadratic).
    k = -shift
    total_digits = int(big.bit_length() * 0.30103 + k * 0.69897) + 40
    c = ctx_for(total_digits)
    pow_cache = {}

    def to_dec(x, bits):
        if bits <= 4096:
            return c.create_decimal(x)
        half = (bits // 2 // 64) * 64
        if half not in pow_cache:
            pow_cache[half] = c.power(decimal.Decimal(2), half)
        hi, lo = x >> half, x & ((1 << half) - 1)
        return c.add(c.multiply(to_dec(hi, bits - half), pow_cache[half]), to_dec(lo, half))

    d = to_dec(big, big.bit_length() + 64)
    d = c.multiply(d, c.power(decimal.Decimal(5), k))
    d = d.scaleb(-k, context=c)
    return -d if sign == "-" else d


# ---------------------------------------------------------------------------------------------
# The switch
# ---------------------------------------------------------------------------------------------
def split_statements(toks):
    """Statements (token lists) separated by ';', with block braces dropped."""
    out, cur = [], []
    depth = 0
    for t in toks:
        if t[0] == "punct" and t[1] == "{" and depth == 0 and not cur:
            continue
        if t[0] == "punct" and t[1] == "}" and depth == 0:
            if cur:
                raise ParseError("line %d: unexpected '}'" % t[2])
            continue
        if t[0] == "punct" and t[1] in "{(":
            depth += 1
        elif t[0] == "punct" and t[1] in "})":
            depth -= 1
        if t[0] == "punct" and t[1] == ";" and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        raise ParseError("line %d: statement without ';'" % cur[0][2])
    return out


def vals(stmt):
    return [t[1] for t in stmt]


def hp_arg(tokens, env, what):
    """HighPrecision{X}: X a string literal, a header string, or an mpf loaded from a hex string."""
    v = vals(tokens)
    if len(v) == 4 and v[0] == "HighPrecision" and v[1] == "{" and v[3] == "}":
        t = tokens[2]
        if t[0] == "string":
            return ("decimal", t[1], None)
        if t[0] == "ident":
            if t[1] in env["mpf"]:
                return ("hex", env["mpf"][t[1]][1], env["mpf"][t[1]][0])
            if t[1] in env["strings"]:
                return ("decimal", env["strings"][t[1]], t[1])
            raise ParseError("%s: %s is not a known string (missing #include?)" % (what, t[1]))
    raise ParseError("%s: expected HighPrecision{...}, got %s" % (what, " ".join(v)[:80]))


def split_args(tokens):
    args, cur, depth = [], [], 0
    for t in tokens:
        if t[0] == "punct" and t[1] in "{(":
            depth += 1
        elif t[0] == "punct" and t[1] in "})":
            depth -= 1
        if t[0] == "punct" and t[1] == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        args.append(cur)
    return args


FIELDS = ("minX", "minY", "maxX", "maxY")


def run_case(stmts, defaults, default_iterations, include_dir, env_strings):
    r = dict(defaults)
    env = {"strings": dict(env_strings), "mpf": {}, "convert": None}
    for st in stmts:
        v = vals(st)
        if not v:
            continue
        if st[0][0] == "pp":
            m = re.match(r'#\s*include\s*"([^"]+)"', st[0][1])
            if not m:
                raise ParseError("line %d: unknown preprocessor line %s" % (st[0][2], st[0][1]))
            hp = os.path.join(include_dir, m.group(1))
            if not os.path.exists(hp):
                raise ParseError("#include \"%s\": not found in %s (give --include-dir)" % (m.group(1),
                                                                                        include_dir))
            env["strings"].update(header_strings(hp))
            r["headers"].append(m.group(1))
            st = st[1:]
            v = vals(st)
            if not v:
                continue
        if v == ["break"]:
            continue
        if v[:1] == ["mpf_t"]:
            continue
        if v[:2] == ["Hex64StringToMpf_Exact", "("] and len(v) == 6:
            name, var = v[2], v[4]
            if name not in env["strings"]:
                raise ParseError("Hex64StringToMpf_Exact: %s is not a known string" % name)
            env["mpf"][var] = (name, env["strings"][name])
            continue
        if v[:2] == ["MpfNormalize", "("]:
            continue  # changes the representation, not the value
        if v[:3] == ["PointZoomBBConverter", "convert", "{"] and v[-1] == "}":
            args = split_args(st[3:-1])
            if len(args) != 4 or vals(args[3])[0] != "PointZoomBBConverter":
                raise ParseError("line %d: PointZoomBBConverter with %d arguments" % (st[0][2], len(args)))
            env["convert"] = [hp_arg(a, env, "PointZoomBBConverter argument %d" % (i + 1))
                              for i, a in enumerate(args[:3])]
            continue
        if v[:2] == ["result", "."] and len(v) >= 4 and v[3] == "=":
            field, rhs, rtoks = v[2], v[4:], st[4:]
            if field in FIELDS:
                if rhs == ["convert", ".", "Get" + field[0].upper() + field[1:], "(", ")"]:
                    if env["convert"] is None:
                        raise ParseError("%s from convert before any PointZoomBBConverter" % field)
                    r[field] = ("convert",)
                else:
                    r[field] = hp_arg(rtoks, env, field)
            elif field == "numIterations":
                if rhs == ["defaultIterations"]:
                    r["numIterations"] = default_iterations
                    r["iter_default"] = True
                elif len(rhs) == 1:
                    r["numIterations"] = parse_int(rhs[0])
                    r["iter_default"] = False
                else:
                    raise ParseError("numIterations = %s" % " ".join(rhs))
            elif field == "gpuAntialiasing":
                r["gpuAntialiasing"] = parse_int(rhs[0])
            elif field == "iterType":
                r["iterType"] = rhs[-1]
            elif field == "setLADefaultsMaxPerf":
                r["setLADefaultsMaxPerf"] = rhs == ["true"]
            elif field in ("compressionErrorExpLow", "compressionErrorExpIntermediate"):
                if rhs[0] in ("defaultCompressionExpLow", "defaultCompressionExpIntermediate"):
                    r[field] = None
                else:
                    r[field] = int("".join(rhs).replace("'", ""))
            elif field == "warningMessage":
                r["warningMessage"] = rtoks[-1][1] if rtoks and rtoks[-1][0] == "string" else ""
            else:
                raise ParseError("unknown field result.%s" % field)
            continue
        raise ParseError("line %d: statement not understood: %s" % (st[0][2], " ".join(v)[:100]))
    return r, env


def parse_presets(cpp_path, include_dir, default_iterations):
    with open(cpp_path, encoding="utf-8-sig") as f:
        text = f.read()
    toks, comments = lex(text)
    # The function: prologue `result.X = ...;` defaults, then switch (view) { case N: ... }.
    try:
        sw = next(i for i in range(len(toks) - 3)
                  if toks[i][1] == "switch" and toks[i + 2][1] == "view" and toks[i + 4][1] == "{")
    except StopIteration:
        raise ParseError("no `switch (view) {` in %s" % cpp_path)
    start = sw + 5
    depth, end = 1, start
    while depth:
        if toks[end][1] == "{" and toks[end][0] == "punct":
            depth += 1
        elif toks[end][1] == "}" and toks[end][0] == "punct":
            depth -= 1
        end += 1
    body = toks[start:end - 1]
    # Prologue defaults (ViewPresetResult as GetViewPreset sets it before the switch).
    fn = max(i for i in range(sw) if toks[i][1] == "GetViewPreset")
    fn = next(i for i in range(fn, sw) if toks[i][:2] == ("punct", "{")) + 1  # the function's body
    defaults = {"numIterations": default_iterations, "iter_default": True, "gpuAntialiasing": 1,
                "iterType": "Bits32", "setLADefaultsMaxPerf": False, "compressionErrorExpLow": None,
                "compressionErrorExpIntermediate": None, "warningMessage": "", "headers": []}
    for st in split_statements([t for t in toks[fn:sw] if t[0] != "pp"]):
        v = vals(st)
        if v[:2] == ["result", "."] and len(v) >= 5 and v[3] == "=":
            if v[2] == "gpuAntialiasing":
                defaults["gpuAntialiasing"] = parse_int(v[4])
            elif v[2] == "iterType":
                defaults["iterType"] = v[-1]
    # Cases: `case N:` labels (and `default:`, which joins the case it follows).
    labels = []
    i = 0
    while i < len(body):
        t = body[i]
        if t[1] == "case" and i + 2 < len(body) and body[i + 1][0] == "number" and body[i + 2][1] == ":":
            labels.append((i, int(body[i + 1][1]), i + 3))
            i += 3
            continue
        if t[1] == "default" and i + 1 < len(body) and body[i + 1][1] == ":":
            labels.append((i, "default", i + 2))
            i += 2
            continue
        i += 1
    cases = []
    for k, (pos, num, first) in enumerate(labels):
        nxt = labels[k + 1][0] if k + 1 < len(labels) else len(body)
        if num == "default":
            continue
        # case 0: default: ... -> the default's body belongs to case 0
        j = k
        while first == nxt and j + 1 < len(labels):
            j += 1
            first = labels[j][2]
            nxt = labels[j + 1][0] if j + 1 < len(labels) else len(body)
        ctoks = body[first:nxt]
        line0 = body[pos][2]
        line1 = body[nxt][2] if nxt < len(body) else toks[end - 1][2]
        ccomments = [c for (ln, c) in comments if line0 <= ln < line1]
        first_stmt_line = next((t[2] for t in ctoks if t[0] not in ("punct",)), line1)
        lead = [c for (ln, c) in comments if line0 <= ln < first_stmt_line]
        cases.append({"case": num, "toks": ctoks, "comments": ccomments, "lead": lead,
                      "line": line0, "defaults": defaults})
    return cases


def fmt_int(n):
    return "{:,}".format(n)


def convert_case(c, args):
    try:
        stmts = split_statements(c["toks"])
    except ParseError as e:
        raise ParseError("case %s: %s" % (c["case"], e))
    d = dict(c["defaults"])
    d["headers"] = []
    r, env = run_case(stmts, d, args.default_iterations, args.include_dir, {})
    notes = []
    W, H = args.width, args.height
    if all(r.get(f) == ("convert",) for f in FIELDS):
        (kx, x, xn), (ky, y, yn), (kz, z, _) = env["convert"]
        if kz != "decimal":
            raise ParseError("zoom factor is not a decimal string")
        if kx == "hex":
            cx, cy = mpf_hex_to_decimal(x), mpf_hex_to_decimal(y)
            src = "the mpf limbs %s/%s of %s (Hex64StringToMpf_Exact), converted exactly" % (
                xn, yn, ", ".join(r["headers"]))
            # The header may carry the same point in decimal too: say how far apart they are.
            for name, val in (("strX", cx), ("strY", cy)):
                alt = env["strings"].get(name)
                if alt is not None:
                    a = dec_of(alt)
                    diff = ctx_for(max(ndigits(a), ndigits(val))).subtract(val, a)
                    notes.append("%s's decimal %s differs from this by %s" % (
                        ", ".join(r["headers"]), name,
                        "0" if diff == 0 else sci(abs(diff), 3)))
        else:
            cx, cy = dec_of(x), dec_of(y)
            src = "PointZoomBBConverter(point, zoom factor)" + (
                " with %s/%s of %s" % (xn, yn, ", ".join(r["headers"])) if xn else "")
        zoom = dec_of(z)
        if zoom <= 0:
            raise ParseError("zoom factor %s <= 0" % z)
        # Box: point +- 2/zoom, square; fitted to a W x H window (W >= H) it keeps its height.
        if W < H:
            raise ParseError("--width below --height: the fitted zoom of a point case would change")
        zoom_str = z.strip()
        if not re.fullmatch(r"\d+(\.\d*)?([eE][+-]?\d+)?", zoom_str):
            zoom_str = sci(zoom)
        if zoom_str.lower().startswith("0"):
            zoom_str = sci(zoom)
        kind = "point"
        box_note = ("FractalShark's point and zoom factor (box = point +- 2/zoom: 4/zoom high, as "
                    "deepscope's view)")
    else:
        missing = [f for f in FIELDS if f not in r]
        if missing:
            raise ParseError("sets no %s" % ", ".join(missing))
        if any(r[f][0] != "decimal" for f in FIELDS):
            raise ParseError("mixes converter and literal coordinates")
        mnx, mny, mxx, mxy = (dec_of(r[f][1]) for f in FIELDS)
        digits = max(ndigits(v) + abs(v.adjusted()) for v in (mnx, mny, mxx, mxy)) + 4
        cc = ctx_for(digits)
        cx = cc.divide(cc.add(mnx, mxx), 2)
        cy = cc.divide(cc.add(mny, mxy), 2)
        dx, dy = cc.subtract(mxx, mnx), cc.subtract(mxy, mny)
        if dx <= 0 or dy <= 0:
            raise ParseError("empty box (max <= min)")
        zc = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
        fit_dx = zc.divide(zc.multiply(dx, H), W)
        ext = max(dy, fit_dx)
        zoom = zc.divide(4, ext)
        zoom_str = sci(zoom)
        aspect = zc.divide(dx, dy)
        kind = "box"
        src = "the box's centre (min + max)/2, exact"
        if fit_dx > dy:
            how = ("its x extent fills the %dx%d window, so FractalShark shows more than the box in y: "
                   "zoom = 4 / (dX * %d/%d) = %s, 4/dY would be %s" % (
                       W, H, H, W, sci(zoom, 6), sci(zc.divide(4, dy), 6)))
        else:
            how = "its y extent fills the %dx%d window: zoom = 4/dY" % (W, H)
        box_note = "box %s x %s (aspect %.4g); %s" % (sci(dx, 6), sci(dy, 6), float(aspect), how)
    return {
        "case": c["case"], "re": plain(cx), "im": plain(cy), "zoom": zoom_str, "zoomdec": zoom,
        "iterations": r["numIterations"], "iter_default": r["iter_default"], "kind": kind,
        "src": src, "box_note": box_note, "fit_x": kind == "box" and fit_dx > dy,
        "aspect": float(aspect) if kind == "box" else 1.0, "notes": notes, "r": r, "comments": c["comments"],
        "lead": c["lead"], "line": c["line"],
    }


def settings_notes(v, default_iterations):
    r = v["r"]
    out = []
    if r["gpuAntialiasing"] != 1:
        out.append("FractalShark renders it with GPU antialiasing %dx (%d samples a pixel; "
                   "gpuAntialiasing = %d)" % (r["gpuAntialiasing"], r["gpuAntialiasing"] ** 2,
                                              r["gpuAntialiasing"]))
    if r["iterType"] != "Bits32":
        out.append("iteration type %s (FractalShark's 64-bit iteration counts; the count exceeds "
                   "2^32)" % r["iterType"] if v["iterations"] >= 2 ** 32 else
                   "iteration type %s (64-bit iteration counts)" % r["iterType"])
    if r["setLADefaultsMaxPerf"]:
        out.append("FractalShark sets its linear-approximation defaults to MaxPerf")
    if r["compressionErrorExpLow"] is not None:
        out.append("reference-orbit compression error exponent (low) %d" % r["compressionErrorExpLow"])
    if r["compressionErrorExpIntermediate"] is not None:
        out.append("compression error exponent (intermediate) %d" % r["compressionErrorExpIntermediate"])
    if r["warningMessage"]:
        out.append("FractalShark warns: \"%s\"" % r["warningMessage"])
    if v["iter_default"]:
        out.append("no iteration count of its own: FractalShark's default, Fractal::DefaultIterations "
                   "= %s" % fmt_int(default_iterations))
    return out


def wrap(text, width=98, prefix="# "):
    words = text.split(" ")
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width - len(prefix):
            lines.append(prefix + cur)
            cur = w
        else:
            cur = (cur + " " + w) if cur else w
    if cur:
        lines.append(prefix + cur)
    return lines


def file_text(v, args):
    hdr = []
    hdr += wrap("FractalShark preset view %s: case %s of %s in %s (GPLv3), commit %s, line %d; "
                "converted by tools/peers/fractalshark_presets.py." % (
                    v["case"], v["case"], PATH, REPO, args.commit, v["line"]))
    hdr += wrap("zoom %s, %s iterations; centre: %s." % (v["zoom"], fmt_int(v["iterations"]), v["src"]))
    hdr += wrap(v["box_note"] + ".")
    for n in v["notes"] + settings_notes(v, args.default_iterations):
        hdr += wrap(n + ".")
    if v["comments"]:
        hdr.append("# FractalShark's comments in this case:")
        for c in v["comments"]:
            hdr.append("#   " + c if c else "#")
    else:
        hdr.append("# FractalShark's comments in this case: none.")
    body = ["re = " + v["re"], "im = " + v["im"], "zoom = " + v["zoom"],
            "iterations = %d" % v["iterations"], "width = %d" % args.width, "height = %d" % args.height]
    return "\n".join(hdr + body) + "\n"


def description(lines):
    """The descriptive lines at the head of a case's comments: up to the first that looks like
    code, a number or a key : value dump."""
    out = []
    for c in lines:
        if (not c or re.match(r'[-+"\d]', c) or " : " in c or "=" in c or "HighPrecision" in c
                or "SetNumIterations" in c):
            break
        out.append(c)
    if out and out[-1].endswith(":"):
        out.pop()
    return out


def readme_text(done, skipped, big, args):
    L = ["# FractalShark preset views", "",
         "Every preset view (case of `GetViewPreset`) of FractalShark's "
         "`%s` ([%s](https://github.com/%s), GPLv3), commit `%s`, as a deepscope location "
         "(issue #42). Only the coordinates, iteration counts and FractalShark's comments are taken "
         "(as data); no FractalShark code is in deepscope." % (PATH, REPO, REPO, args.commit), "",
         "Made, from deepscope's root, with a checkout of FractalShark at that commit in FS/:", "",
         "    python3 tools/peers/fractalshark_presets.py FS/FractalSharkLib/FractalViewPresets.cpp \\",
         "        --commit %s --readme" % args.commit, "",
         "It reads the .cpp and, from the same folder, the headers cases 30 and 32 include "
         "(`LargeCoords30.h`, `LargeCoords32.h`) and `Fractal.h` (the default iteration count); it "
         "needs no network. %s" % (args.file_note or ""),
         "",
         "Centre and zoom: a case gives a box (minX, minY, maxX, maxY) or a point and zoom factor "
         "(box = point ± 2/zoom). FractalShark widens the box about its centre to the window's aspect "
         "(`PointZoomBBConverter::SquareAspectRatio`) and its zoom factor is 4/(box height), the "
         "same convention as deepscope's zoom (the view is 4/zoom high, docs/mandelbrot.md). So the "
         "centre is (min + max)/2, computed exactly in decimal, and zoom = 4 / max(dY, dX·H/W) for "
         "the %dx%d window each file names (`width`, `height`; `--size` keeps the height 4/zoom). "
         "Point cases keep FractalShark's own point and zoom string; case 30's point is converted "
         "exactly from its GMP limbs (`strXHex`/`strYHex`)." % (args.width, args.height), "",
         "Iterations: each case's `numIterations`; a case that sets none gets FractalShark's "
         "default, `Fractal::DefaultIterations` = %s (256 × 32, `Fractal.h`): only case 0, the "
         "home view." % fmt_int(args.default_iterations), "",
         "Notes: *AA 4x*: FractalShark renders the preset with 4x4 GPU antialiasing; *64-bit iters*: "
         "its 64-bit iteration type (counts past 2^32); *LA MaxPerf*: it sets its linear-approximation "
         "defaults to MaxPerf; *point+zoom*: the case gives a point and zoom factor; *box 2.4:1*: the "
         "box is wider than 16:9 (made on a wide window): FractalShark at 1920x1080, and the file, "
         "show its full width and more above and below; each such file's header gives 4/dY, the zoom "
         "that shows just the box at its own aspect.", "",
         "| case | file | zoom | iterations | notes | FractalShark's comment (its first lines) |",
         "| ---: | --- | ---: | ---: | --- | --- |"]
    for v in done:
        notes = []
        r = v["r"]
        if r["gpuAntialiasing"] != 1:
            notes.append("AA %dx" % r["gpuAntialiasing"])
        if r["iterType"] != "Bits32":
            notes.append("64-bit iters")
        if r["setLADefaultsMaxPerf"]:
            notes.append("LA MaxPerf")
        if v["iter_default"]:
            notes.append("default iters")
        if v["kind"] == "point":
            notes.append("point+zoom")
        elif v["fit_x"]:
            notes.append("box %.3g:1" % v["aspect"])
        lead = " ".join(description(v["lead"])) or "—"
        if v["case"] == 0:
            lead = "(the home view: case 0 and default)" + ("" if lead == "—" else " " + lead)
        if r["warningMessage"]:
            lead = (lead + " (warning: %s)" % r["warningMessage"]) if lead != "—" else \
                "(warning: %s)" % r["warningMessage"]
        if len(lead) > 140:
            lead = lead[:137] + "..."
        lead = lead.replace("|", "\\|")
        name = "view%02d.loc" % v["case"]
        fname = name if v["case"] not in big else name + " (not committed: %s bytes)" % fmt_int(big[v["case"]])
        L.append("| %s | %s | %s | %s | %s | %s |" % (v["case"], fname, short_sci(v["zoomdec"]),
                                                      fmt_int(v["iterations"]), ", ".join(notes) or "",
                                                      lead))
    L.append("")
    if skipped:
        L.append("Skipped (not parsed):")
        L.append("")
        for num, why in skipped:
            L.append("- case %s: %s" % (num, why))
    else:
        L.append("Every case parsed; none skipped.")
    if big:
        L.append("")
        L.append("Not written (over %s bytes): %s." % (fmt_int(args.max_bytes),
                                                       ", ".join("case %s" % k for k in big)))
    L.append("")
    return "\n".join(L)


def read_default_iterations(include_dir):
    p = os.path.join(include_dir, "Fractal.h")
    if not os.path.exists(p):
        return None
    with open(p, encoding="utf-8-sig", errors="replace") as f:
        for line in f:
            m = re.match(r"\s*static\s+constexpr\s+\w+\s+DefaultIterations\s*=\s*([\d\s*'+]+);", line)
            if m:
                n = 1
                for part in m.group(1).split("*"):
                    n *= parse_int(part.strip())
                return n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cpp", help="FractalShark's FractalSharkLib/FractalViewPresets.cpp")
    ap.add_argument("--out", default="assets/locations/fractalshark")
    ap.add_argument("--include-dir", default=None, help="folder of the headers it includes "
                    "(LargeCoords30.h, ...) and Fractal.h (default: the .cpp's folder)")
    ap.add_argument("--commit", default="(unknown)", help="the FractalShark commit read, for headers")
    ap.add_argument("--file-note", default=None, help="a sentence for the README about the source's "
                    "history")
    ap.add_argument("--default-iterations", type=int, default=None)
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--max-bytes", type=int, default=2_000_000)
    ap.add_argument("--readme", action="store_true", help="also write README.md in --out")
    args = ap.parse_args()
    if args.include_dir is None:
        args.include_dir = os.path.dirname(os.path.abspath(args.cpp))
    if args.default_iterations is None:
        n = read_default_iterations(args.include_dir)
        args.default_iterations = n if n else FALLBACK_DEFAULT_ITERATIONS
        print("default iterations: %d (%s)" % (args.default_iterations,
                                                "Fractal.h" if n else "built-in, no Fractal.h"))
    os.makedirs(args.out, exist_ok=True)
    cases = parse_presets(args.cpp, args.include_dir, args.default_iterations)
    done, skipped, big = [], [], {}
    for c in cases:
        try:
            v = convert_case(c, args)
        except (ParseError, decimal.DecimalException) as e:
            why = str(e) or type(e).__name__
            skipped.append((c["case"], why))
            print("case %s: skipped: %s" % (c["case"], why))
            continue
        text = file_text(v, args)
        path = os.path.join(args.out, "view%02d.loc" % v["case"])
        if len(text.encode()) > args.max_bytes:
            big[v["case"]] = len(text.encode())
            print("case %s: not written, %s bytes" % (v["case"], fmt_int(len(text.encode()))))
            if os.path.exists(path):
                os.remove(path)
        else:
            with open(path, "w") as f:
                f.write(text)
            print("case %s: %s zoom %s, %s iterations, %s bytes" % (
                v["case"], path, v["zoom"], fmt_int(v["iterations"]), fmt_int(len(text.encode()))))
        done.append(v)
    done.sort(key=lambda v: v["case"])
    if args.readme:
        with open(os.path.join(args.out, "README.md"), "w") as f:
            f.write(readme_text(done, skipped, big, args))
    print("%d views converted, %d skipped, %d too large" % (len(done) - len(big), len(skipped), len(big)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
