#!/usr/bin/env python3
# Per-kernel register counts of the SASS inside .cu.o objects, for machines without cuobjdump: the
# cubin entries of the .nv_fatbin section (zstd-compressed by nvcc 13) are decompressed with the
# zstd tool and the EIATTR_REGCOUNT attributes of .nv.info are read for each entry function.
# Usage: docs/bench/cubin_regcount.py OBJECT.cu.o ... > counts.tsv   (object, registers, symbol)
import struct, subprocess, sys, os, tempfile

def fatbin_of(obj):
    with tempfile.NamedTemporaryFile(suffix='.fatbin') as f:
        subprocess.run(['objcopy', '-O', 'binary', '--only-section=.nv_fatbin', obj, f.name], check=True)
        return open(f.name, 'rb').read()

def cubins(d):
    off = 0
    while off + 16 <= len(d):
        magic, ver, hs, fs = struct.unpack_from('<IHHQ', d, off)
        if magic != 0xba55ed50: break
        p, end = off + hs, off + hs + fs
        while p < end:
            kind, ev, ehs, psize = struct.unpack_from('<HHIQ', d, p)
            csize, = struct.unpack_from('<I', d, p + 16)
            payload = d[p + ehs:p + ehs + psize]
            if payload[:4] == b'\x28\xb5\x2f\xfd': payload = payload[:csize]
            if kind == 2:
                if payload[:4] == b'\x28\xb5\x2f\xfd':
                    payload = subprocess.run(['zstd', '-dc'], input=payload, capture_output=True, check=True).stdout
                yield payload
            p += ehs + psize
        off = end

def regcounts(elf):
    # ELF64 little endian
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
        secs.append((name, typ, off, size, link, info, entsize))
    shstr = secs[shstrndx]
    def nm(s, o):
        e = elf.index(b'\0', s[2] + o); return elf[s[2] + o:e].decode()
    names = [nm(shstr, s[0]) for s in secs]
    symtab = next(s for s in secs if s[1] == 2)
    strtab = secs[symtab[4]]
    syms = []
    for k in range(symtab[3] // 24):
        st_name, = struct.unpack_from('<I', elf, symtab[2] + k * 24)
        syms.append(nm(strtab, st_name))
    out = {}
    for s, n in zip(secs, names):
        if n != '.nv.info': continue
        p, end = s[2], s[2] + s[3]
        while p < end:
            fmt, attr = elf[p], elf[p + 1]
            if fmt == 4:  # EIFMT_SVAL: u16 size, payload
                size, = struct.unpack_from('<H', elf, p + 2)
                if attr == 0x2f:  # EIATTR_REGCOUNT: symbol index, count
                    sym, cnt = struct.unpack_from('<II', elf, p + 4)
                    out[syms[sym]] = cnt
                p += 4 + size
            elif fmt == 3: p += 4   # EIFMT_HVAL
            elif fmt == 2: p += 4   # EIFMT_BVAL (2 bytes + pad)
            elif fmt == 1: p += 4   # EIFMT_NVAL
            else: raise ValueError('nv.info format %d' % fmt)
    # Kernels: the entries of .nv.info.<name> sections (entry functions)
    entries = {n[len('.nv.info.'):] for n in names if n.startswith('.nv.info.')}
    return out, entries

res = {}
for obj in sys.argv[1:]:
    for cub in cubins(fatbin_of(obj)):
        counts, entries = regcounts(cub)
        for k, v in counts.items():
            if k in entries:
                res[(os.path.basename(obj), k)] = v
for (o, k), v in sorted(res.items()):
    print(f'{o}\t{v}\t{k}')
