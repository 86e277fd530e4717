python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(cat .devrun/suite_files79.txt)"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 14 220 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_TEST_DEVICES=cuda:0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 70 python3 -m pytest -q -n 12 -p no:cacheprovider tests/property/test_prop_elementwise.py > $OUT/prop_elementwise_$T.txt 2>&1; tail -1 $OUT/prop_elementwise_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-60; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "\| (float32|int64) \|" | cut -c1-190
