# the single-pass compaction branch (single-pass-compaction): its tests on cuda:0, then the
# compaction rows of bench_primitives beside CuPy and PyTorch, and bench_bounds
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_TEST_DEVICES=cuda:0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 -m pytest -q -n 12 -p no:cacheprovider tests/test_compaction_gpu.py tests/test_compaction.py tests/test_advanced_indexing.py tests/test_indexing.py tests/test_set_functions.py tests/test_searchsorted.py tests/test_scan_chained.py > $OUT/compaction_tests_$T.txt 2>&1; tail -2 $OUT/compaction_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/compaction_tests_$T.txt | head -20
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-60; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "\| (float32|int64) \|" | cut -c1-190
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 benchmarks/bench_bounds.py --device cuda:0 > $OUT/bounds_$T.md 2>&1; grep -a -E "^\|" $OUT/bounds_$T.md | head -20
