python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 220 python3 .devrun/suite.py 12 210 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 python3 benchmarks/bench_elementwise.py --device cuda:0 > $OUT/elementwise_$T.md 2>&1; grep -A8 "Throughput" $OUT/elementwise_$T.md | head -12; grep -A5 "x16384" $OUT/elementwise_$T.md
bash .devrun/kprof.sh "cumulative_sum,x[,nonzero,take" float32; head -120 $OUT/kprof_float32.txt
