set -e
cd $(dirname $0)
nvcc -O3 -arch=sm_90 -cubin copy.cu -o /tmp/copy.cubin

g++ -O2 harness.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/harness
{ echo "img 1 1 1 16 gen/img.u0.cubin 1 gen/img.u1.cubin 1 gen/img.u2.cubin 2 gen/img.u4.cubin 4"
  echo "blend 2 2 2 8 gen/blend.u0.cubin 1 gen/blend.u1.cubin 1 gen/blend.u2.cubin 2 gen/blend.u4.cubin 4"
  echo "f16 2 2 2 8 gen/f16.u0.cubin 1 gen/f16.u1.cubin 1 gen/f16.u2.cubin 2 gen/f16.u4.cubin 4"
  echo "sin 1 4 4 4 gen/sin.u0.cubin 1 gen/sin.u1.cubin 1 gen/sin.u2.cubin 2 gen/sin.u4.cubin 4"
  echo "add 2 4 4 4 gen/add.u0.cubin 1 gen/add.u1.cubin 1 gen/add.u2.cubin 2 gen/add.u4.cubin 4"; } | /tmp/harness /tmp/copy.cubin
for f in gen/img.u*.cubin; do echo "$f $(cuobjdump -sass $f | grep -cE "^\s+/\*[0-9a-f]{4}\*/")"; done
