#!/bin/bash
# benches + host-line A/B + the whole suite on cuda:0, results under $OUT
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
cp .devrun/commit.txt $OUT/commit.txt
export ROCARRAY_CACHE_DIR=$(mktemp -d)
timeout 200 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives.json > $OUT/primitives.md 2>&1
timeout 120 python3 benchmarks/bench_ranking.py --device cuda:0 --json $OUT/ranking.json > $OUT/ranking.md 2>&1
for r in 1 2; do
  PYTHONPATH=$PWD/.devrun/base timeout 60 python3 .devrun/joinline.py >> $OUT/joinline_ab.txt 2>&1
  PYTHONPATH=$PWD timeout 60 python3 .devrun/joinline.py >> $OUT/joinline_ab.txt 2>&1
done
timeout ${SUITE_T:-330} python3 .devrun/suite.py 15 240 $OUT/suite.txt > /dev/null 2>&1
grep -E "concat|stack|search" $OUT/joinline_ab.txt | head -20; grep -E "TOTAL" $OUT/suite.txt; grep -E "\| (float32|int64) \|" $OUT/primitives.md | head -30
