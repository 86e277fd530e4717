nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 .devrun/qvar.py rocarray,cupy,torch > $OUT/qvar_all_$T.txt 2>&1; cat $OUT/qvar_all_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 python3 .devrun/qvar.py rocarray > $OUT/qvar_alone_$T.txt 2>&1; cat $OUT/qvar_alone_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero" > $OUT/masks_$T.md 2>&1; grep -a -E "^\|" $OUT/masks_$T.md | grep -E "\| (float32|int64) \|" | cut -c1-190
