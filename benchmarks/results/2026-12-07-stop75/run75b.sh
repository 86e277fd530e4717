python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 150 python3 .devrun/prof75.py 2>&1 | grep -v -i warn > $OUT/prof75_$T.txt; head -12 $OUT/prof75_$T.txt
for i in 1 2; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 .devrun/first75.py sort isin > $OUT/first75_${T}_$i.txt 2>&1; grep "first call" $OUT/first75_${T}_$i.txt; done
