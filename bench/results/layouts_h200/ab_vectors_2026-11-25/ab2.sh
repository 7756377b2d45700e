set -e
cd $(dirname $0)
nvcc -O3 -arch=sm_90 -cubin copy.cu -o /tmp/copy.cubin
g++ -O2 harness.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/harness
line() { local n=$1; shift; echo -n "$n $* "; for m in 0 1 2 3; do for u in 1 2; do echo -n "gen/$n.m$m.u$u.cubin $u "; done; done; echo; }
{ line img 1 1 1 16; line blend 2 2 2 8; line f16 2 2 2 8; line mask 1 4 1 4; line u8f 1 1 4 4; } | /tmp/harness /tmp/copy.cubin
for f in gen/*.cubin; do echo "$f $(cuobjdump -sass $f | grep -cE '^\s+/\*[0-9a-f]{4}\*/')"; done | column -c 200
