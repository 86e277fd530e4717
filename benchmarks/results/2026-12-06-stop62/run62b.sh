python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 -c "import numpy; print(numpy.__version__)"; grep -m1 "model name" /proc/cpuinfo
T=$(cat .devrun/tree)
F="tests/test_split_sort.py tests/test_radix_sort.py tests/test_count_sort.py tests/test_sorting.py tests/test_network_sort.py tests/test_set_functions.py tests/property/test_prop_sorting.py tests/test_searchsorted.py"
(ROCARRAY_TEST_DEVICES=cpu ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 -m pytest -q -p no:cacheprovider -n 6 --dist loadfile $F > $OUT/cpu16_sort_tests_$T.txt 2>&1) &
(ROCARRAY_TEST_DEVICES=cpu ROCARRAY_NUM_THREADS=2 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 taskset -c 8,9 python3 -m pytest -q -p no:cacheprovider tests/test_split_sort.py > $OUT/cpu2_split_tests_$T.txt 2>&1) &
ROCARRAY_TEST_DEVICES=cuda:0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 -m pytest -q -p no:cacheprovider -n 4 --dist loadfile $F > $OUT/cuda_sort_tests_$T.txt 2>&1
wait
for f in $OUT/*_$T.txt; do echo "$(basename $f): $(tail -1 $f)"; grep -E "^FAILED|^E   " $f | head -8; done
# the host's split sort pinned to two CPUs of this machine, beside its NumPy
ROCARRAY_NUM_THREADS=2 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 taskset -c 8,9 python3 benchmarks/bench_primitives.py --device cpu --dtypes float32,float64,int64 --ops sort --wide > $OUT/cpu2_sorts_$T.md 2>&1; grep -E "^\| sort" $OUT/cpu2_sorts_$T.md
