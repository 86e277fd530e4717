python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
T=$(cat .devrun/tree); export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-80; grep -a -E "^\| .* \| (float32|int64) \|" $OUT/primitives_cuda_$T.md | cut -c1-110
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_ranking.py --device cuda:0 > $OUT/ranking_cuda_$T.md 2>&1; tail -2 $OUT/ranking_cuda_$T.md
