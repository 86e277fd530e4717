python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 -c "import numpy, cupy, torch; print(numpy.__version__, cupy.__version__, torch.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ulimit -c 16000000; mkdir -p /tmp/cores; (echo "/tmp/cores/core.%p" > /proc/sys/kernel/core_pattern) 2>&1
PY=$(readlink -f $(which python3))
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 330 python3 .devrun/suite.py 10 320 $OUT/suite_$T.txt > $OUT/suite_stdout_$T.txt 2>&1
grep TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 $OUT/suite_stdout_$T.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ls /tmp/cores; for c in $(ls /tmp/cores/core* 2>/dev/null | head -1); do timeout 45 cuda-gdb -batch -ex "info threads" -ex "thread apply all bt 30" $PY $c > $OUT/bt_$(basename $c).txt 2>&1; grep -B2 -A25 "SIGSEGV\|signal 11" $OUT/bt_$(basename $c).txt | head -50; done
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_bounds.py --device cuda:0 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; grep -E "^\||launch and|device" $OUT/bounds_$T.md | head -50
