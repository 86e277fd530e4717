#!/bin/bash
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
which nvdisasm cuobjdump >> $OUT/gpu.txt 2>&1
export ROCARRAY_CACHE_DIR=$(mktemp -d)
for r in 1 2; do
  (cd .devrun/base && PYTHONPATH=$PWD timeout 80 python3 ../ab.py base) >> $OUT/ab.txt 2>&1
  PYTHONPATH=$PWD timeout 80 python3 .devrun/ab.py new $([ $r = 1 ] && echo peers) >> $OUT/ab.txt 2>&1
done
PYTHONPATH=$PWD timeout 330 python3 .devrun/suite.py 15 240 $OUT/suite.txt > /dev/null 2>&1
(cd .devrun/base && SUITE_FILES="tests/test_gather_gpu.py tests/test_gather.py tests/test_full_modules.py tests/test_manipulation_functions.py tests/test_advanced_indexing.py tests/compiler/test_gather_gpu_ir.py" PYTHONPATH=$PWD timeout 150 python3 suite.py 8 140 $OUT/suite_base_part.txt > /dev/null 2>&1)
PYTHONPATH=$PWD timeout 200 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives.json > $OUT/primitives.md 2>&1
grep -E "take|regs" $OUT/ab.txt | grep -v "^ "; grep -E "TOTAL|failed|FAIL|TIMEOUT" $OUT/suite.txt $OUT/suite_base_part.txt | head; grep -E "\| (float32|int64) \|" $OUT/primitives.md | head -30
