python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 -c "import numpy; print(numpy.__version__)"
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 330 python3 .devrun/suite.py 10 300 $OUT/suite_$T.txt > $OUT/suite_stdout_$T.txt 2>&1
grep TOTAL $OUT/suite_$T.txt
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -40
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 240 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -E "^\||copy band|device:" $OUT/primitives_cuda_$T.md | head -60
