# The whole suite at HEAD on cuda:0; user kernels' and elementwise warm tables, old (5e2abab) then new, twice; bench_primitives.
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
git log --oneline -1 > $OUT/head.txt 2>/dev/null || true
python3 .devrun/suite.py 16 200 $OUT/suite.txt > $OUT/suite.log 2>&1; tail -2 $OUT/suite.txt; grep -n "FAILED\|^E  \|TIMEOUT" $OUT/suite.txt | head -20
for r in 1 2; do
  PYTHONPATH=$PWD/.devrun/old python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_old_$r.md 2>&1
  PYTHONPATH=$PWD python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_new_$r.md 2>&1
done
grep -h "sqdiff(x.T\|raw x" $OUT/uk_*.md
python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives.json > $OUT/primitives.md 2>$OUT/primitives.err; grep -A40 "### Throughput" $OUT/primitives.md | head -40
