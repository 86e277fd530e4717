#!/bin/bash
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export ROCARRAY_CACHE_DIR=$(mktemp -d)
for r in 1 2; do
  for v in base b64 t64o i2 i1; do
    (cd .devrun/$v && PYTHONPATH=$PWD timeout 80 python3 ../ab.py $v) >> $OUT/ab.txt 2>&1
  done
  PYTHONPATH=$PWD timeout 80 python3 .devrun/ab.py new >> $OUT/ab.txt 2>&1
done
cat $OUT/ab.txt | grep -v "^ "
