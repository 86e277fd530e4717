python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 120 python3 -m pytest -q -p no:cacheprovider -n 14 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py tests/runtime tests/test_advanced_indexing.py tests/test_indexing.py tests/test_bad_input.py tests/test_numpy_select.py tests/clients/test_sklearn.py > $OUT/mask_tests_$T.txt 2>&1; tail -1 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -12
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 110 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\||copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-170
