# per-kernel durations and DRAM bytes of one call of each op: bash kprof.sh OPS DTYPES
for dt in ${2:-float32 int64}; do
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 ncu --profile-from-start off --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size python3 .devrun/kprof.py $dt rocarray,cupy,torch "$1" > /tmp/kprof_$dt.csv 2> /tmp/kprof_$dt.err
python3 .devrun/kprof_sum.py /tmp/kprof_$dt.csv > $OUT/kprof_$dt.txt 2>&1 || tail -20 /tmp/kprof_$dt.err >> $OUT/kprof_$dt.txt
done
