python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
for r in 1 2; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops sort,argsort > $OUT/primitives_$r.md 2>&1; grep -A16 "First call" $OUT/primitives_$r.md | grep -E "sort|first op"; done
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 200 python3 -m pytest -q -p no:cacheprovider -n 6 tests/test_radix_gpu.py tests/test_radix_sort.py tests/test_sorting.py tests/test_searchsorted.py tests/test_set_functions.py > $OUT/sort_tests.txt 2>&1; grep -E "passed|failed|FAILED|^E " $OUT/sort_tests.txt | head -30
