python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import numpy, cupy, torch; print(numpy.__version__, cupy.__version__, torch.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 300 python3 .devrun/suite.py 14 280 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 200 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\||copy band|device" $OUT/primitives_cuda_$T.md | head -70
