#!/bin/bash
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
for r in 1 2 3; do
  (cd .devrun/base && PYTHONPATH=$PWD timeout 60 python3 ../joinline.py) >> $OUT/joinline_ab.txt 2>&1
  PYTHONPATH=$PWD timeout 60 python3 .devrun/joinline.py >> $OUT/joinline_ab.txt 2>&1
done
export PYTHONPATH=$PWD
ROCARRAY_CACHE_DIR=$(mktemp -d) CUDA_CACHE_DISABLE=1 timeout 150 python3 benchmarks/bench_ranking.py --device cuda:0 --json $OUT/ranking_cold.json > $OUT/ranking_cold.md 2>&1
cat $OUT/joinline_ab.txt | grep -v "^ "; tail -4 $OUT/ranking_cold.md
