python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
python3 .devrun/suite.py 16 200 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -2 $OUT/suite.txt; grep -n "FAILED\|^E  \|TIMEOUT" $OUT/suite.txt | head -20
