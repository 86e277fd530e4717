set -x
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
for r in 1 2 3; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --ops sort,argsort > $OUT/first_sorts_$r.md 2>&1; grep -A16 "First call" $OUT/first_sorts_$r.md | grep -E "sort|first op"; done
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 260 python3 benchmarks/bench_primitives.py --device cuda:0 > $OUT/primitives.md 2>&1
tail -60 $OUT/primitives.md
