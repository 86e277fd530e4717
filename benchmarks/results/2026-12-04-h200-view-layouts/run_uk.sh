# before the call: git show 1abf17b:rocarray/_user_kernels.py > .devrun/old_user_kernels.py
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
python3 .devrun/suite.py 15 240 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -3 $OUT/suite.txt; grep -n "FAILED\|^E  " $OUT/suite.txt | head -30
mkdir -p /tmp/old && cp -r rocarray benchmarks kernels .devrun /tmp/old/ && cp .devrun/old_user_kernels.py /tmp/old/rocarray/_user_kernels.py
for i in 1 2; do (cd /tmp/old && PYTHONPATH=/tmp/old timeout 120 python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_old_$i.md 2>&1); timeout 120 python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_new_$i.md 2>&1; done
for f in $OUT/uk_old_1.md $OUT/uk_new_1.md $OUT/uk_old_2.md $OUT/uk_new_2.md; do echo "== $f"; grep "^| Elem\|^| fuse\|^| Red\|Error" $f; done
export PYTHONPATH=$PWD
mkdir -p /tmp/old && cp -r rocarray benchmarks kernels .devrun /tmp/old/ && cp .devrun/old_user_kernels.py /tmp/old/rocarray/_user_kernels.py
for i in 1 2; do (cd /tmp/old && PYTHONPATH=/tmp/old timeout 60 python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_old_$i.md 2>&1); timeout 60 python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_new_$i.md 2>&1; done
for f in $OUT/uk_old_1.md $OUT/uk_new_1.md $OUT/uk_old_2.md $OUT/uk_new_2.md; do echo "== $f"; grep "^| Elem\|^| fuse\|^| Red\|Error" $f; done
