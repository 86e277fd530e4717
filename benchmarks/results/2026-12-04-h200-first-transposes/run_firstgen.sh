python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
for v in module generic module generic; do
  ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 120 python3 .devrun/firstgen.py $v 2>&1 | grep -v -i warn
done | tee $OUT/firstgen.txt
