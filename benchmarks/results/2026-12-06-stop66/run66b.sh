python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 330 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -E "^\||copy band|device" $OUT/primitives_cuda_$T.md | head -70
