python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 120 python3 -m pytest -q -p no:cacheprovider -n 4 tests/test_gather.py tests/test_advanced_indexing.py tests/test_scan_chained.py > $OUT/cuda_tests_$T.txt 2>&1); tail -1 $OUT/cuda_tests_$T.txt; grep -E "^E  |FAILED" $OUT/cuda_tests_$T.txt | head
for cfg in "int32 3 4194304" "int16 9 4194304" "bool 2 4194304" "int32 2001 4194304"; do
  for tree in old63b new; do
    if [ $tree = new ]; then P=$R; else P=$R/.devrun/$tree; fi
    (cd /tmp && ROCARRAY_CACHE_DIR=$(mktemp -d) PYTHONPATH=$P:/tmp/site taskset -c 8,9 timeout 40 python3 $R/.devrun/cs3.py $tree $cfg >> $OUT/cpu2_count_ab_$T.txt 2>&1)
  done
done
cat $OUT/cpu2_count_ab_$T.txt
