python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/pytest_xdist*.whl .whl/execnet*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name --format=csv,noheader
T=$(cat .devrun/tree)
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 6 tests/test_gather_gpu.py tests/test_advanced_indexing.py tests/test_primitives.py tests/test_scan_chained.py tests/runtime/test_gpu_runtime.py > $OUT/gpu_tests_$T.txt 2>&1
tail -3 $OUT/gpu_tests_$T.txt; grep -E "FAILED|^E " $OUT/gpu_tests_$T.txt | head -10
