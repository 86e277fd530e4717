python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 -m pytest -q -x -n 12 -p no:cacheprovider tests/test_compaction_gpu.py tests/test_set_functions.py tests/runtime/test_pool.py tests/test_compaction.py tests/test_advanced_indexing.py > $OUT/mask_tests_$T.txt 2>&1; tail -2 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -20
for v in new old; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 45 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero,x[x > 0]" > /tmp/m.md 2>&1; cat /tmp/m.md >> $OUT/masks_ab_${T}_${v}.md; echo "== bench $v"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-190
done
export SUITE_FILES="$(cat .devrun/suite_order.txt)"
