set -x
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import llvmlite, numpy, cupy, torch; print(llvmlite.__version__, numpy.__version__, cupy.__version__, torch.__version__)"
(ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 330 python3 -m pytest -q -p no:cacheprovider -n 4 tests/property/test_prop_elementwise.py > $OUT/prop_elementwise.txt 2>&1) &
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 340 python3 .devrun/suite.py 12 320 $OUT/suite.txt > $OUT/suite_stdout.txt 2>&1
wait
grep -v '^ ' $OUT/prop_elementwise.txt | grep -E "FAILED|passed|failed|Falsifying|^E " | head -30
grep TOTAL $OUT/suite.txt
sed -n '/^TOTAL/,$p' $OUT/suite.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -60
