python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
# 1. kernels with no vector path: the tree before (old65) and after, in turn
for round in 1 2; do
  PYTHONPATH=$R/.devrun/old65:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 .devrun/scalar_ab.py old >> $OUT/scalar_ab_$T.txt 2>&1
  ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 .devrun/scalar_ab.py new >> $OUT/scalar_ab_$T.txt 2>&1
done
grep -v Warn $OUT/scalar_ab_$T.txt | cut -c1-180
# 2. bounds
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 benchmarks/bench_bounds.py --device cuda:0 --json $OUT/bounds_$T.data.json > $OUT/bounds_$T.md 2>&1; tail -38 $OUT/bounds_$T.md
# 3. the scan's tile variants, each in its own copy of the package, twice in turn
for v in 8:6 6:8 12:4 16:3; do
  s=${v%:*}; b=${v#*:}; d=/tmp/v_${s}_${b}; mkdir -p $d; cp -r rocarray kernels $d/
  sed -i "s/^CHAIN_STEPS = .*/CHAIN_STEPS = $s/; s/^CHAIN_BLOCKS = .*/CHAIN_BLOCKS = $b/" $d/rocarray/compiler/reduction_chain.py
done
for round in 1 2; do for v in 8:6 6:8 12:4 16:3; do
  s=${v%:*}; b=${v#*:}
  PYTHONPATH=/tmp/v_${s}_${b}:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 50 python3 .devrun/scanvar.py r$round >> $OUT/scanvar_$T.txt 2>&1
done; done
grep -v Warn $OUT/scanvar_$T.txt | cut -c1-200
# 4. ncu of the single-pass scan
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 80 ncu --clock-control none --kernel-name regex:'chained_[0-9a-f]+$' --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats python3 .devrun/ncu_scan.py float32 > $OUT/ncu_scan_float32.txt 2>&1
grep -E "DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Eligible|Issued Warp|No Eligible|Warp Cycles Per Issued|L2 Hit|Mem Busy|Max Bandwidth|Grid Size|Stall" $OUT/ncu_scan_float32.txt | head -40
