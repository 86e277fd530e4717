python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_elementwise_functions.py tests/test_manipulation_functions.py tests/test_indexing.py tests/test_fuse.py > $OUT/gpu_tests_$T.txt 2>&1; tail -3 $OUT/gpu_tests_$T.txt; grep -E "^FAILED|^E  " $OUT/gpu_tests_$T.txt | head -20
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 benchmarks/bench_elementwise.py --device cuda:0 > $OUT/elementwise_$T.md 2>&1; grep -A8 "Throughput" $OUT/elementwise_$T.md | head -12; grep -A5 "x16384" $OUT/elementwise_$T.md
