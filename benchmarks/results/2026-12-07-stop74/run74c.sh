python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_compaction_gpu.py tests/test_set_functions.py tests/test_radix_gpu.py > $OUT/tests_$T.txt 2>&1; tail -1 $OUT/tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/tests_$T.txt | head -12
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 .devrun/prof74b.py 2>&1 | grep -v -i warn > $OUT/prof74b_$T.txt; cut -c1-200 $OUT/prof74b_$T.txt | head -150
