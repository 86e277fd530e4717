nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
T=$(cat .devrun/tree)
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 .devrun/prof73.py 2>&1 | grep -v Warn > $OUT/prof73_$T.txt; head -12 $OUT/prof73_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 14 tests/test_compaction_gpu.py tests/test_compaction.py tests/runtime tests/test_set_functions.py > $OUT/mask_tests_$T.txt 2>&1; tail -1 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -12
