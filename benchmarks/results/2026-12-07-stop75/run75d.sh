python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1
for r in 1 2 3; do
  PYTHONPATH=$R/.devrun/old:/tmp/site ROCARRAY_CACHE_DIR=/tmp/rc-old python3 .devrun/sortab.py old
  PYTHONPATH=$R:/tmp/site ROCARRAY_CACHE_DIR=/tmp/rc-new python3 .devrun/sortab.py new
done 2>&1 | grep -v -i warn | tee $OUT/sortab_$T.txt
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 14 200 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "sort|unique" | cut -c1-150
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 benchmarks/bench_ranking.py --device cuda:0 > $OUT/ranking_cuda_$T.md 2>&1; tail -3 $OUT/ranking_cuda_$T.md
