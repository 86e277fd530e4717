python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree)
ROCARRAY_TEST_DEVICES=cpu ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 -m pytest -q -p no:cacheprovider -n 4 tests/test_network_sort.py tests/test_sorting.py tests/test_searchsorted.py tests/test_settings.py tests/test_split_sort.py > $OUT/cpu_sort_tests_$T.txt 2>&1; tail -1 $OUT/cpu_sort_tests_$T.txt; grep -E '^E  |FAILED' $OUT/cpu_sort_tests_$T.txt | head
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 4 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise_$T.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 340 python3 .devrun/suite.py 12 320 $OUT/suite_$T.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise_$T.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -20
grep TOTAL $OUT/suite_$T.txt
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
