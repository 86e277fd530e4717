python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R
ROCARRAY_TEST_DEVICES=cuda:0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 -m pytest -q -n 12 -p no:cacheprovider tests/test_compaction_gpu.py tests/test_set_functions.py tests/runtime/test_pool.py tests/test_compaction.py tests/test_advanced_indexing.py tests/test_scan_chained.py tests/test_full_modules.py tests/test_sorting.py > $OUT/mask_tests_$T.txt 2>&1; rc=$?; tail -2 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -20
[ $rc = 0 ] || exit 1
for v in new old new old; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero,unique" > /tmp/m.md 2>&1; cat /tmp/m.md >> $OUT/masks_ab_${T}_${v}.md; echo "== bench $v"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-190
done
for v in new old; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/hostq.py cuda:0 > $OUT/hostq_${T}_$v.txt 2>&1; echo "== hostq $v"; cat $OUT/hostq_${T}_$v.txt
done
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(cat .devrun/suite_files78.txt)"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 14 220 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
