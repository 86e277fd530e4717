set -x
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 .devrun/suite.py 16 280 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
grep TOTAL $OUT/suite.txt
export ROCARRAY_CACHE_DIR=$(mktemp -d)
timeout 170 python3 benchmarks/bench_primitives.py --device cuda:0 > $OUT/primitives.md 2>&1
tail -5 $OUT/primitives.md
export ROCARRAY_CACHE_DIR=$(mktemp -d)
timeout 60 python3 benchmarks/bench_ranking.py --device cuda:0 > $OUT/ranking.md 2>&1
tail -8 $OUT/ranking.md
