# before the call: git show fd48268:rocarray/_elementwise.py > .devrun/old_elementwise.py (the path before the layout table)
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
python3 .devrun/suite.py 15 240 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -3 $OUT/suite.txt; grep -n "FAILED\|^E  " $OUT/suite.txt | head -30
mkdir -p /tmp/old && cp -r rocarray benchmarks kernels .devrun /tmp/old/ && cp .devrun/old_elementwise.py /tmp/old/rocarray/_elementwise.py
for i in 1 2; do (cd /tmp/old && PYTHONPATH=/tmp/old timeout 150 python3 .devrun/warm_tables.py cuda:0 > $OUT/warm_old_$i.md 2>&1); timeout 150 python3 .devrun/warm_tables.py cuda:0 > $OUT/warm_new_$i.md 2>&1; done
for f in $OUT/warm_old_1.md $OUT/warm_new_1.md $OUT/warm_old_2.md $OUT/warm_new_2.md; do echo "== $f"; grep "###\|rocarray |\|CuPy |\|PyTorch |" $f | cut -c1-60; done
