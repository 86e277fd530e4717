python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 130 python3 -m pytest -q -p no:cacheprovider -n 14 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py tests/test_advanced_indexing.py tests/test_numpy_select.py tests/property/test_prop_indexing.py tests/test_numpy_more.py tests/test_numpy_utils.py tests/test_bad_input.py tests/clients/test_sklearn.py tests/test_indexing.py > $OUT/mask_tests_$T.txt 2>&1; tail -1 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -10
kp() { case $1 in old) PP=$R/.devrun/old;; A) PP=$R;; *) PP=$R/.devrun/var$1;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread python3 .devrun/kprof.py $2 rocarray "0] = v" > /tmp/kp.csv 2>/tmp/kp.err; python3 .devrun/kprof_sum.py /tmp/kp.csv > /tmp/kp_$2_$1.txt 2>&1 || tail -5 /tmp/kp.err; echo "== $1 $2"; grep -a "_p$" /tmp/kp_$2_$1.txt; }
kp old float32; kp A float32; kp A int64; kp old int64; kp A float32
for v in old A; do case $v in old) PP=$R/.devrun/old;; A) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 50 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[x" > /tmp/m.md 2>&1; echo "== $v"; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-150
done
