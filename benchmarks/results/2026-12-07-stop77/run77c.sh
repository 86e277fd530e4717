python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 -m pytest -q -x -n 12 -p no:cacheprovider tests/test_compaction_gpu.py tests/test_set_functions.py tests/runtime/test_pool.py tests/test_compaction.py tests/test_advanced_indexing.py > $OUT/mask_tests_$T.txt 2>&1; tail -2 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -20
for v in new old; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 45 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero,x[x > 0]" > /tmp/m.md 2>&1; cat /tmp/m.md >> $OUT/masks_ab_${T}_${v}.md; echo "== bench $v"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-190
done
export SUITE_FILES="$(cat .devrun/suite_order.txt)"
C=$(mktemp -d); for s in 771 772 773; do (ROCARRAY_DEVICE=cuda:0 ROCARRAY_CACHE_DIR=$C timeout 200 python3 .devrun/fuzz75.py $s 120 > /tmp/fuzz_$s.txt 2>&1; echo "seed $s rc $?" >> /tmp/fuzz_$s.txt) & done
PYTHONFAULTHANDLER=1 timeout 230 python3 .devrun/suite.py 13 200 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
wait; for s in 771 772 773; do grep -v -E "Warning|a = a|return bound" /tmp/fuzz_$s.txt; done > $OUT/fuzz_cuda_$T.txt; cut -c1-300 $OUT/fuzz_cuda_$T.txt | head -20
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 110 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-60; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "\| (float32|int64) \|" | cut -c1-190
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_bounds.py --device cuda:0 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; grep -a -E "^\||^sectors|wait between" $OUT/bounds_$T.md | cut -c1-200
