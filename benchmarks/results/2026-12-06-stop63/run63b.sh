python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
for k in 1 2 3; do
  for tree in old new; do
    if [ $tree = old ]; then P=$R/.devrun/old63; else P=$R; fi
    (cd /tmp && ROCARRAY_CACHE_DIR=$(mktemp -d) PYTHONPATH=$P:/tmp/site timeout 100 python3 $R/.devrun/scanab.py $tree >> $OUT/scanab_$T.txt 2>&1)
  done
done
cat $OUT/scanab_$T.txt
cd $R && export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops cumulative_sum --json $OUT/primitives_cumsum_$T.json > $OUT/primitives_cumsum_$T.md 2>&1; grep -E "^\| cumul" $OUT/primitives_cumsum_$T.md
PYTHONPATH=$R/.devrun/old63:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops cumulative_sum > $OUT/primitives_cumsum_old.md 2>&1; grep -E "^\| cumul" $OUT/primitives_cumsum_old.md
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops cumulative_sum > $OUT/primitives_cumsum_${T}_2.md 2>&1; grep -E "^\| cumul" $OUT/primitives_cumsum_${T}_2.md
