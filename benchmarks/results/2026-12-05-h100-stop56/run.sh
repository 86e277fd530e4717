set -x
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import llvmlite, numpy, cupy, torch; print(llvmlite.__version__, numpy.__version__, cupy.__version__, torch.__version__)"
(echo "== ROCARRAY_COMPILE_PROCESS=0"; ROCARRAY_COMPILE_PROCESS=0 ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/firstcall.py int16; echo "== default"; ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/firstcall.py int16) > $OUT/firstcall.txt 2>&1
cat $OUT/firstcall.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 60 python3 .devrun/sinc.py > $OUT/sinc.txt 2>&1; cat $OUT/sinc.txt
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 300 python3 -m pytest -q -p no:cacheprovider -n 5 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 320 python3 .devrun/suite.py 12 300 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -30
grep TOTAL $OUT/suite.txt
sed -n '/^TOTAL/,$p' $OUT/suite.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
export ROCARRAY_CACHE_DIR=$(mktemp -d)
timeout 170 python3 benchmarks/bench_primitives.py --device cuda:0 > $OUT/primitives.md 2>&1
tail -48 $OUT/primitives.md
