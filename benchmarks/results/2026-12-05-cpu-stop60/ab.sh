#!/bin/bash
# A/B of stop 60's later changes: the tree before them (462e6d2) and after (HEAD), in turn.
OUT=/work/main/benchmarks/results/2026-12-05-cpu-stop60/ab
mkdir -p $OUT
S=/work/scratch/s60
cd /tmp
for tree in old:/work/old60b new:/work/main; do
  name=${tree%%:*}; path=${tree#*:}
  export PYTHONPATH=$path ROCARRAY_CACHE_DIR=$(mktemp -d)
  python=/work/venv/bin/python
  $python $S/medium.py int32,float32,int64,float64,int16 > $OUT/lines_$name.txt 2>&1
  $python $S/rows16.py cur 8,16,20,24,31,100,1024,8192,65536 int16,uint16,int8,uint8,bool > $OUT/narrow_rows_$name.txt 2>&1
  $python $S/argrows.py int16,int8,uint16,uint8 40,100,256,1024,2048,8192 > $OUT/narrow_argsort_rows_$name.txt 2>&1
  $python $S/put_small.py > $OUT/put_small_target_$name.txt 2>&1
done
