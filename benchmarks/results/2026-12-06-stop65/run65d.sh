python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ulimit -c unlimited; mkdir -p /tmp/cores; id -u; cat /proc/sys/kernel/core_pattern
(echo "/tmp/cores/core.%p" > /proc/sys/kernel/core_pattern) 2>&1; cat /proc/sys/kernel/core_pattern
PY=$(readlink -f $(which python3)); echo $PY
# the bounds at this tree (the raw descriptor in registers)
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 benchmarks/bench_bounds.py --device cuda:0 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; grep -E "^\||launch and" $OUT/bounds_$T.md | head -40
# the worker crash: the GPU tests of gathers, indexing, scans and user kernels at -n 4, until one crashes
for r in 1 2 3 4; do
  ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 100 python3 -X faulthandler -m pytest -q -p no:cacheprovider -n 4 tests/test_elementwise_kernel.py tests/test_gather_gpu.py tests/test_advanced_indexing.py tests/test_scan_chained.py tests/test_compaction_gpu.py > $OUT/hunt_${T}_$r.txt 2>&1
  echo "run $r: $(tail -1 $OUT/hunt_${T}_$r.txt)"; grep -E "crashed|Fatal" $OUT/hunt_${T}_$r.txt | head -3
  ls -la /tmp/cores | tail -n +4
  if ls /tmp/cores/core.* >/dev/null 2>&1; then
    for c in /tmp/cores/core.*; do timeout 90 cuda-gdb -batch -ex "info threads" -ex "thread apply all bt 30" $PY $c > $OUT/bt_$(basename $c).txt 2>&1; grep -A30 "^Thread.*\(SIGSEGV\|received\)\|^#0" $OUT/bt_$(basename $c).txt | head -60; done
    break
  fi
done
