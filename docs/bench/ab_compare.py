#!/usr/bin/env python3
"""Compares the tables of `deepscope bench NAME` before and after a change (.ci/gpu-ab.sh):
NAME_after_*.md against NAME_before_*.md in the current folder, row by row. For every timing or
rate column it prints the median over the runs of after / before, per column and per kind of row
(GPU: a row naming cuda or a GPU column; other rows are CPU), with the two lowest and highest rows.
Usage: cd RESULTS && python3 ab_compare.py NAME"""
import re,sys,glob,statistics as st
def tables(path):
    out=[];hdr=None;sec=''
    for line in open(path):
        if line.startswith('#'): sec=line.strip('# \n')
        if not line.startswith('|'): hdr=None; continue
        cells=[c.strip() for c in line.strip().strip('|').split('|')]
        if hdr is None: hdr=cells; continue
        if set(''.join(cells))<=set('-: '): continue
        out.append((sec,tuple(hdr),cells))
    return out
def num(s):
    try: return float(s.replace('x','').replace('%',''))
    except: return None
bench=sys.argv[1]
A=[tables(f) for f in sorted(glob.glob(f'{bench}_after_*.md'))]
B=[tables(f) for f in sorted(glob.glob(f'{bench}_before_*.md'))]
ratios={}
n=len(A[0])
for i in range(n):
    sec,hdr,cells=A[0][i]
    if len(B[0])!=n or B[0][i][1]!=hdr: print('mismatch',i); continue
    for j,h in enumerate(hdr):
        if not re.search(r'/s|seconds|time|\(s\)|Giter', h): continue
        a=[num(t[i][2][j]) for t in A]; b=[num(t[i][2][j]) for t in B]
        if None in a or None in b or min(b)<=0 or min(a)<=0: continue
        key=' '.join(cells[:4]).strip()
        gpu = h.startswith('GPU') or 'loop' in h or 'cuda' in ' '.join(cells).lower() or 'GPU' in sec or 'gpu' in ' '.join(cells).lower()
        r=st.median(a)/st.median(b)
        ratios.setdefault((gpu,h),[]).append((r,key,a,b))
for (gpu,h),v in sorted(ratios.items()):
    rs=sorted(x[0] for x in v)
    print(f"{'GPU' if gpu else 'CPU/other'} | {h} | rows {len(rs)} | median after/before {st.median(rs):.3f} | min {rs[0]:.3f} | max {rs[-1]:.3f}")
    for r,key,a,b in sorted(v)[:2]+sorted(v)[-2:]:
        print(f"     {r:.3f} {key[:60]} a={a} b={b}")
