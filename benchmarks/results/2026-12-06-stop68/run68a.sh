python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import numpy, cupy, torch; print(numpy.__version__, cupy.__version__, torch.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
for wb in 3 5; do d=/tmp/wb$wb; mkdir -p $d; cp -r rocarray kernels $d/; sed -i "s/^WRITE_BLOCKS = .*/WRITE_BLOCKS = $wb/" $d/rocarray/compiler/compact_gpu.py; grep "^WRITE_BLOCKS" $d/rocarray/compiler/compact_gpu.py; done
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 12 tests/test_compaction_gpu.py tests/test_compaction.py tests/test_set_functions.py tests/test_advanced_indexing.py tests/test_numpy_select.py tests/property/test_prop_indexing.py > $OUT/mask_tests_$T.txt 2>&1; tail -1 $OUT/mask_tests_$T.txt; grep -a -E "^FAILED|^E  " $OUT/mask_tests_$T.txt | head -10
for v in old new wb3 wb5; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; *) PP=/tmp/$v;; esac
for dt in float32 int64; do [ $dt = int64 ] && [ $v != old ] && [ $v != new ] && continue
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread python3 .devrun/kprof.py $dt rocarray "x[,nonzero" > /tmp/kp.csv 2>/tmp/kp.err; python3 .devrun/kprof_sum.py /tmp/kp.csv > $OUT/kprof_${dt}_${v}_$T.txt 2>&1 || tail -5 /tmp/kp.err; echo "== $v $dt"; grep -a "compact\|==" $OUT/kprof_${dt}_${v}_$T.txt | grep -v "idx\]" | head -16
done; done
for r in 1 2; do for v in old new; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[,nonzero,unique" > $OUT/masks_${v}_r$r.md 2>&1; echo "== $v r$r"; grep -a -E "^\|" $OUT/masks_${v}_r$r.md | grep -E "\| (float32|int64) \|" | grep -v "idx" | cut -c1-150
done; done
