set -x
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log --oneline -1 2>/dev/null; python3 -c "import llvmlite, numpy, cupy, torch; print(llvmlite.__version__, numpy.__version__, cupy.__version__, torch.__version__)"
(for cp in 0 1; do echo "== ROCARRAY_COMPILE_PROCESS=$cp"; ROCARRAY_COMPILE_PROCESS=$cp ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/firstcall.py int16 cuda:0 1000; ROCARRAY_COMPILE_PROCESS=$cp ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/firstcall.py int32 cuda:0 16777216; done) > $OUT/firstcall.txt 2>&1
grep -E "^==|first op|cache|misses" $OUT/firstcall.txt | head -20
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_sort_modules.py --device cuda:0 > $OUT/sort_modules.md 2>&1; tail -40 $OUT/sort_modules.md
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 benchmarks/bench_primitives.py --device cuda:0 > $OUT/primitives.md 2>&1
tail -50 $OUT/primitives.md
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 4 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 340 python3 .devrun/suite.py 12 320 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -30
grep TOTAL $OUT/suite.txt
sed -n '/^TOTAL/,$p' $OUT/suite.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
