python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ulimit -c 16000000; mkdir -p /tmp/cores; (echo "/tmp/cores/core.%p" > /proc/sys/kernel/core_pattern) 2>&1; cat /proc/sys/kernel/core_pattern
PY=$(readlink -f $(which python3))
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 10 240 $OUT/suite_$T.txt > $OUT/suite_stdout_$T.txt 2>&1
grep TOTAL $OUT/suite_$T.txt || (echo "cut short:"; grep -c "passed" $OUT/suite_$T.txt.progress; grep -E "failed|error|TIMEOUT|Fatal|\?" $OUT/suite_$T.txt.progress | head -20)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|crashed|^E  " | head -30
ls -la /tmp/cores | tail -n +4; ls -la $R/core* 2>/dev/null; mv $R/core* /tmp/cores/ 2>/dev/null
for c in $(ls /tmp/cores/core* 2>/dev/null | head -1); do timeout 45 cuda-gdb -batch -ex "info threads" -ex "thread apply all bt 30" $PY $c > $OUT/bt_$(basename $c).txt 2>&1; grep -B2 -A25 "SIGSEGV\|signal 11" $OUT/bt_$(basename $c).txt | head -50; done
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 45 python3 benchmarks/bench_bounds.py --device cuda:0 --dtypes float32 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; grep -E "^\||launch and" $OUT/bounds_$T.md | head -40
