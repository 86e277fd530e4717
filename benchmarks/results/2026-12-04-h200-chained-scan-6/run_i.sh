# Next session: verify branch chain6 on the H200 (check it out first), then merge.
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
python3 .devrun/suite.py 15 240 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -3 $OUT/suite.txt; grep -n "FAILED\|^E  " $OUT/suite.txt | head -30
python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives.json > $OUT/primitives.md 2>$OUT/primitives.err
grep -i "cumulative\|copy bandwidth" $OUT/primitives.md
timeout 100 python3 benchmarks/results/2026-12-04-h200-chained-scan-6/chaintest.py time 2>&1 | grep -v -i warn > $OUT/chain_time.txt; cat $OUT/chain_time.txt
