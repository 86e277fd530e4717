python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/hostq.py cuda:0 > $OUT/hostq_$T.txt 2>&1; cat $OUT/hostq_$T.txt
for dt in float32 int64; do
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread python3 .devrun/kprof.py $dt rocarray,torch "x[,nonzero,cumul" > /tmp/kp.csv 2>/tmp/kp.err; python3 .devrun/kprof_sum.py /tmp/kp.csv rocarray,torch > $OUT/kprof_${dt}_$T.txt 2>&1 || tail -5 /tmp/kp.err; echo "== $dt"; grep -v "idx\]" $OUT/kprof_${dt}_$T.txt | head -60
done
ROCARRAY_TEST_DEVICES=cuda:0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 -m pytest -q -n 12 -p no:cacheprovider tests/property/test_prop_elementwise.py > $OUT/prop_elementwise_$T.txt 2>&1; tail -3 $OUT/prop_elementwise_$T.txt
