set -e
cd $(dirname $0)
nvcc -O3 -arch=sm_90 -cubin copy.cu -o /tmp/copy.cubin
g++ -O2 harness.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/harness
line() { local n=$1; shift; echo -n "$n $* "; for m in 3 7 15; do for u in 1 2; do [ -f gen/$n.m$m.u$u.cubin ] && echo -n "gen/$n.m$m.u$u.cubin $u "; done; done; echo; }
{ line img 1 1 1 16; line f16 2 2 2 8; line sin 1 4 4 4; line add 2 4 4 4; } | /tmp/harness /tmp/copy.cubin
for f in gen/*.cubin; do echo "$f $(cuobjdump -sass $f | grep -cE '^\s+/\*[0-9a-f]{4}\*/') $(cuobjdump -sass $f | grep -c 'LDG.*CONSTANT')"; done
