python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ulimit -c 16000000; mkdir -p /tmp/cores; (echo "/tmp/cores/core.%p" > /proc/sys/kernel/core_pattern) 2>&1
PY=$(readlink -f $(which python3))
# the test files whose GPU kernels take raw operands (every file in its own process, an empty cache each)
export SUITE_FILES="tests/test_elementwise_kernel.py tests/test_gather_gpu.py tests/test_advanced_indexing.py tests/test_count_sort.py tests/test_radix_gpu.py tests/test_set_functions.py tests/test_sorting.py tests/test_compaction_gpu.py tests/test_compaction.py tests/test_manipulation_functions.py tests/test_indexing.py tests/test_gather.py tests/test_random.py tests/test_searchsorted.py tests/test_interpreter.py tests/test_reduction_kernel.py tests/test_fuse.py tests/test_primitives.py tests/test_scan_chained.py tests/compiler/test_gpu_quick_tier.py"
PYTHONFAULTHANDLER=1 timeout 175 python3 .devrun/suite.py 10 165 $OUT/suite_raw_$T.txt > $OUT/suite_stdout_$T.txt 2>&1
grep TOTAL $OUT/suite_raw_$T.txt || (echo "cut short:"; cat $OUT/suite_raw_$T.txt.progress | grep -v "^ " | head -30)
sed -n '/^TOTAL/,$p' $OUT/suite_raw_$T.txt | grep -E "^=====|FAILED|TIMEOUT|Fatal|^E  " | head -20
ls /tmp/cores; for c in $(ls /tmp/cores/core* 2>/dev/null | head -1); do timeout 30 cuda-gdb -batch -ex "thread apply all bt 20" $PY $c > $OUT/bt.txt 2>&1; grep -B2 -A20 "SIGSEGV\|signal 11" $OUT/bt.txt | head -40; done
