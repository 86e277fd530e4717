python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
# 1. bounds
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 170 python3 benchmarks/bench_bounds.py --device cuda:0 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; tail -40 $OUT/bounds_$T.md
# 3. the scan's tile variants, each in its own copy of the package, twice in turn
for v in 8:6 6:8 4:8 12:4 16:3; do
  s=${v%:*}; b=${v#*:}; d=/tmp/v_$s_$b; d=/tmp/v_${s}_${b}; mkdir -p $d; cp -r rocarray $d/
  sed -i "s/^CHAIN_STEPS = .*/CHAIN_STEPS = $s/; s/^CHAIN_BLOCKS = .*/CHAIN_BLOCKS = $b/" $d/rocarray/compiler/reduction_chain.py
done
for round in 1 2; do for v in 8:6 6:8 4:8 12:4 16:3; do
  s=${v%:*}; b=${v#*:}
  PYTHONPATH=/tmp/v_${s}_${b}:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/scanvar.py r$round >> $OUT/scanvar_$T.txt 2>&1
done; done
cat $OUT/scanvar_$T.txt | grep -v Warn | cut -c1-200
# 2. ncu of the single-pass scan
for dt in float32 int64; do
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 ncu --clock-control none --kernel-name regex:'chained$' --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats python3 .devrun/ncu_scan.py $dt > $OUT/ncu_scan_$dt.txt 2>&1
grep -E "DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Shared Memory Config|Block Limit|Eligible|Issued Warp|No Eligible|Warp Cycles Per Issued|One or More|L2 Hit|Mem Busy|Max Bandwidth|Grid Size|Stall" $OUT/ncu_scan_$dt.txt | head -40
done
