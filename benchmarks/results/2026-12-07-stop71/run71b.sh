python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
R=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 100 python3 -m pytest -q -p no:cacheprovider -n 14 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py tests/runtime > $OUT/mask_tests.txt 2>&1; tail -1 $OUT/mask_tests.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests.txt | head -12
for v in new old; do case $v in old) PP=$R/.devrun/old71;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site TREE=$v ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 .devrun/gap71.py > $OUT/gap71_$v.txt 2>&1; grep -v "^timeline" $OUT/gap71_$v.txt | grep -a -v -E "^ |^===|^$|ncalls|function calls|Ordered" | tail -30
done
grep "^timeline" $OUT/gap71_*.txt | cut -c1-200
for r in 1 2; do for v in new old; do case $v in old) PP=$R/.devrun/old71;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero,x[x > 0],unique" > /tmp/m.md 2>&1; cp /tmp/m.md $OUT/masks_ab_${v}_$r.md; echo "== bench $v $r"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-170
done; done
