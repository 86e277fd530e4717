set -x
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import llvmlite, numpy, cupy, torch; print(llvmlite.__version__, numpy.__version__, cupy.__version__, torch.__version__)"
timeout 290 python3 .devrun/suite.py 16 240 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
grep TOTAL $OUT/suite.txt
sed -n '/^TOTAL/,$p' $OUT/suite.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
timeout 75 python3 .devrun/putdiag.py > $OUT/putdiag.txt 2>&1; cat $OUT/putdiag.txt
export ROCARRAY_CACHE_DIR=$(mktemp -d)
timeout 150 python3 benchmarks/bench_primitives.py --device cuda:0 > $OUT/primitives.md 2>&1
tail -40 $OUT/primitives.md
