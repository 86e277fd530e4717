python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log --oneline -1 2>/dev/null
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 4 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 340 python3 .devrun/suite.py 12 320 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -30
grep TOTAL $OUT/suite.txt
sed -n '/^TOTAL/,$p' $OUT/suite.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
for r in 1 2; do CUDA_CACHE_DISABLE=1 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/switch.py 2>&1 | tail -1; done > $OUT/switch.txt; cat $OUT/switch.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops sort > $OUT/primitives_sorts.md 2>&1; grep -E "^\| (sort|argsort)" $OUT/primitives_sorts.md
