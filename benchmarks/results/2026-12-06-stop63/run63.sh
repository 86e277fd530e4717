python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 -c "import numpy, torch, cupy; print(numpy.__version__, torch.__version__, cupy.__version__)"
T=$(cat .devrun/tree); R=$PWD
# the single pass's tests first
(cd $PWD && ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 PYTHONPATH=$PWD:/tmp/site timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_scan_chained.py > $OUT/scan_chained_$T.txt 2>&1); tail -3 $OUT/scan_chained_$T.txt; grep -E "^E  |FAILED" $OUT/scan_chained_$T.txt | head -20
# old and new in turn, each in a fresh process with an empty cache
for k in 1 2; do
  for tree in old new; do
    if [ $tree = old ]; then P=$PWD/.devrun/old63; else P=$PWD; fi
    (cd /tmp && ROCARRAY_CACHE_DIR=$(mktemp -d) PYTHONPATH=$P:/tmp/site timeout 120 python3 $R/.devrun/scanab.py $tree >> $OUT/scanab_$T.txt 2>&1)
  done
done
cat $OUT/scanab_$T.txt
export PYTHONPATH=$PWD:/tmp/site
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 3 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise_$T.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 345 python3 .devrun/suite.py 10 320 $OUT/suite_$T.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise_$T.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -20
grep TOTAL $OUT/suite_$T.txt
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.json > $OUT/primitives_cuda_$T.md 2>&1; grep -E "^\|" $OUT/primitives_cuda_$T.md | head -60
