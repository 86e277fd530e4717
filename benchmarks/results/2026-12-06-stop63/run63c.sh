python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; python3 -c "import numpy; print(numpy.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
# the host's sort tests on the 16 threads and on two, beside the GPU suite
(ROCARRAY_TEST_DEVICES=cpu ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 300 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -n 3 tests/test_count_sort.py tests/test_split_sort.py tests/test_network_sort.py tests/test_sorting.py tests/test_radix_sort.py tests/test_set_functions.py tests/test_advanced_indexing.py > $OUT/cpu16_sort_tests_$T.txt 2>&1) &
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 3 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise_$T.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 345 python3 .devrun/suite.py 10 320 $OUT/suite_$T.txt > $OUT/suite_stdout.txt 2>&1
wait
tail -1 $OUT/cpu16_sort_tests_$T.txt; grep -E "^E  |FAILED" $OUT/cpu16_sort_tests_$T.txt | head
grep -v '^ ' $OUT/prop_elementwise_$T.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -20
grep TOTAL $OUT/suite_$T.txt
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.json > $OUT/primitives_cuda_$T.md 2>&1; grep -E "^\|" $OUT/primitives_cuda_$T.md | head -60
