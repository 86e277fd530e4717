python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 14 200 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
C=$(mktemp -d)
for s in 31 32 33 34 35 36 37 38; do (ROCARRAY_DEVICE=cuda:0 ROCARRAY_CACHE_DIR=$C timeout 170 python3 .devrun/fuzz75.py $s 150 > /tmp/fuzz_$s.txt 2>&1; echo "seed $s rc $?" >> /tmp/fuzz_$s.txt) & done; wait
for s in 31 32 33 34 35 36 37 38; do grep -v -E "Warning|a = a|return bound" /tmp/fuzz_$s.txt; done > $OUT/fuzz_cuda_$T.txt; cat $OUT/fuzz_cuda_$T.txt | cut -c1-300 | head -40
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "sort|unique|take|x\[" | cut -c1-150
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 benchmarks/bench_ranking.py --device cuda:0 > $OUT/ranking_cuda_$T.md 2>&1; tail -3 $OUT/ranking_cuda_$T.md
