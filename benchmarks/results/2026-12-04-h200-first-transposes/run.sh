python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
python3 .devrun/suite.py 15 240 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -3 $OUT/suite.txt; grep -n "FAILED\|^E  " $OUT/suite.txt | head -30
timeout 120 python3 .devrun/ab_compact.py > $OUT/ab_compact.txt 2>&1; cat $OUT/ab_compact.txt
python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives.json > $OUT/primitives.md 2>$OUT/primitives.err
sed -n '/First call/,/isin/p' $OUT/primitives.md; grep -i "x\[x\|nonzero\|transpose\|copy bandwidth" $OUT/primitives.md
