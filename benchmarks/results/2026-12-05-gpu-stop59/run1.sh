python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PYTHONPATH=$PWD:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 240 python3 -m pytest -q -x -p no:cacheprovider -n 4 tests/test_compaction_gpu.py tests/test_compaction.py > $OUT/compaction_tests.txt 2>&1
rc=$?; tail -4 $OUT/compaction_tests.txt; grep -E "^E  |FAILED" $OUT/compaction_tests.txt | head -20
[ $rc = 0 ] || exit 1
PROF_OPS="x[m],x[x>0],nonzero,> 0" ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 .devrun/prof.py 2>&1 | grep -v Warn > $OUT/prof_new.txt; cat $OUT/prof_new.txt | grep -E "wall|\+" | grep -v torch -A4 | head -60
for r in 1 2; do
for tree in new old; do
  if [ $tree = old ]; then P=$PWD/.devrun/old:/tmp/site; else P=$PWD:/tmp/site; fi
  PYTHONPATH=$P ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[x > 0],nonzero" > $OUT/prim_${tree}_$r.md 2>&1
  echo "== $tree $r"; grep -E "^\| (x\[|nonzero|copy)|copy bandwidth" $OUT/prim_${tree}_$r.md
done; done
