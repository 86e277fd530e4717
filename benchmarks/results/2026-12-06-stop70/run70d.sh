python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
R=$PWD
export PYTHONPATH=$R:/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 100 python3 -m pytest -q -p no:cacheprovider -n 14 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py > $OUT/mask_tests_B.txt 2>&1; tail -1 $OUT/mask_tests_B.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_B.txt | head -12
for r in 1 2; do for v in B A old; do case $v in old) PP=$R/.devrun/old;; A) PP=$R/.devrun/capA;; B) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 50 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero" > /tmp/m.md 2>&1; echo "== bench $v $r"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-170
done; done
