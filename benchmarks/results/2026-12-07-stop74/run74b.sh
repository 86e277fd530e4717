python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
export SUITE_FILES="tests/test_radix_gpu.py tests/test_sorting.py tests/test_radix_sort.py tests/test_set_functions.py tests/test_count_sort.py $(ls tests/runtime/test_*.py | tr '\n' ' ') tests/test_searchsorted.py tests/test_compaction_gpu.py tests/test_gather_gpu.py tests/test_split_sort.py tests/test_primitives.py"
PYTHONFAULTHANDLER=1 timeout 200 python3 .devrun/suite.py 14 190 $OUT/tests_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/tests_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/tests_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 .devrun/prof74.py 2>&1 | grep -v -i warn > $OUT/prof74_$T.txt; cut -c1-900 $OUT/prof74_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/fake74.py > $OUT/fake74_device.txt 2>&1; cat $OUT/fake74_device.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 benchmarks/bench_ranking.py --device cuda:0 > $OUT/ranking_cuda_$T.md 2>&1; tail -12 $OUT/ranking_cuda_$T.md
