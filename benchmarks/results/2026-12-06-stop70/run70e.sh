export PYTHONUNBUFFERED=1
R=$PWD
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
for v in B old; do case $v in old) PP=$R/.devrun/old;; B) PP=$R;; esac
for dt in float32 int64; do
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size python3 .devrun/kprof.py $dt rocarray "nonzero,x[m]" > /tmp/kprof_$dt.csv 2> /tmp/kprof_$dt.err
echo "=== kprof $v $dt"; python3 .devrun/kprof_sum.py /tmp/kprof_$dt.csv rocarray 2>&1 | grep -v "^$" || tail -20 /tmp/kprof_$dt.err
done; done
