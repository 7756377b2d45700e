set -e
cd $(dirname $0)
nvcc -O3 -arch=sm_90 -cubin copy.cu -o /tmp/copy.cubin
g++ -O2 harness.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/harness
line() { local n=$1; shift; echo -n "$n $* "; for u in 1 2 3 4 8; do echo -n "gen/$n.m3.u$u.cubin $u "; done; echo; }
{ line img 1 1 1 16; line i8 2 1 1 16; line mask 1 1 1 16; } | /tmp/harness /tmp/copy.cubin
for f in gen/*.cubin; do echo "$f $(cuobjdump -sass $f | grep -cE '^\s+/\*[0-9a-f]{4}\*/') regs $(cuobjdump -res-usage $f 2>/dev/null | grep -o 'REG:[0-9]*')"; done
