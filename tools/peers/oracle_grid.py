#!/usr/bin/env python3
"""Compares deepscope render --counts (WxH .npy) with deepscope oracle --grid N counts at the grid's pixels
(pixel (floor((k + 0.5) W / N), floor((l + 0.5) H / N)) at oracle[l][k]), trusted pixels only.
usage: oracle_grid.py ORACLE.npy COUNTS.npy N W H   (for the F3 peer tables in docs/bench/cpu-peers.md)"""
import struct,sys
def npy(p):
    b=open(p,'rb').read(); hl=struct.unpack('<H',b[8:10])[0]; h=b[10:10+hl].decode(); d=b[10+hl:]
    sz=8 if '<u8' in h else 4 if '<u4' in h else 1
    return h,[int.from_bytes(d[i:i+sz],'little') for i in range(0,len(d),sz)]
if len(sys.argv)!=6:
    print('usage: oracle_grid.py ORACLE.npy COUNTS.npy N W H', file=sys.stderr)
    sys.exit(2)
orc,ds,N,W,H=sys.argv[1],sys.argv[2],int(sys.argv[3]),int(sys.argv[4]),int(sys.argv[5])
_,o=npy(orc); _,t=npy(orc[:-4]+'_trusted.npy'); h,d=npy(ds)
ex=o1=bd=nt=0
for l in range(N):
  for k in range(N):
    if not t[l*N+k]: continue
    nt+=1;x=int((k+.5)*W/N);y=int((l+.5)*H/N);e=d[y*W+x]-o[l*N+k]
    if e==0: ex+=1
    elif abs(e)==1: o1+=1
    else: bd+=1
print(f"deepscope against MPFR, {N}x{N} grid: {nt} trusted, {ex} exact, {o1} off by one, {bd} beyond")
