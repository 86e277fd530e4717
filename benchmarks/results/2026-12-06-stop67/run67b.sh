python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import numpy, cupy, torch; print(numpy.__version__, cupy.__version__, torch.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 100 python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py > $OUT/compaction_tests_$T.txt 2>&1; tail -2 $OUT/compaction_tests_$T.txt; grep -E "^FAILED|^E  " $OUT/compaction_tests_$T.txt | head -20
# the mask rows, old tree and new in turn, twice
for r in 1 2; do for v in old new; do if [ $v = old ]; then PP=$R/.devrun/old:/tmp/site; else PP=$R:/tmp/site; fi
PYTHONPATH=$PP ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[,nonzero,unique" > $OUT/masks_${v}_r$r.md 2>&1; echo "== $v r$r"; grep -E "^\|" $OUT/masks_${v}_r$r.md | grep -E "x\[|nonzero|unique" | head -20
done; done
PYTHONPATH=$R:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size python3 .devrun/kprof.py float32 rocarray "x[,nonzero" > /tmp/kp.csv 2>/tmp/kp.err; python3 .devrun/kprof_sum.py /tmp/kp.csv > $OUT/kprof_float32_$T.txt 2>&1 || tail -5 /tmp/kp.err; head -40 $OUT/kprof_float32_$T.txt
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 240 python3 .devrun/suite.py 12 230 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
