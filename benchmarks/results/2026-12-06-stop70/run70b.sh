python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 250 python3 .devrun/suite.py 14 210 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
grep -a -E "test_compaction_gpu|test_set_functions|test_mapped|test_compaction.py" $OUT/suite_$T.txt | head -8
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 100 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\||copy bandwidth" $OUT/primitives_cuda_$T.md | cut -c1-170
for r in 1 2; do for v in new old; do case $v in old) PP=$R/.devrun/old;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[x,x[m],nonzero,unique" > /tmp/m.md 2>&1; echo "== bench $v $r"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-170
done; done
