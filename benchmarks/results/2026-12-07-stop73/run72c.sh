python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONUNBUFFERED=1 PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 230 python3 .devrun/suite.py 14 200 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
for v in new old; do case $v in old) PP=$R/.devrun/old72;; mid) PP=$R/.devrun/mid72;; new) PP=$R;; esac
PYTHONPATH=$PP:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 45 python3 benchmarks/bench_primitives.py --device cuda:0 --ops "x[m],nonzero,x[x > 0]" > /tmp/m.md 2>&1; cp /tmp/m.md $OUT/masks_ab_${v}.md; echo "== bench $v"; grep -a -E "copy bandwidth" /tmp/m.md | cut -c1-60; grep -a -E "^\|" /tmp/m.md | grep -E "\| (float32|int64) \|" | cut -c1-170
done
ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 75 python3 benchmarks/bench_primitives.py --device cuda:0 --json $OUT/primitives_cuda_$T.data.json > $OUT/primitives_cuda_$T.md 2>&1; grep -a -E "^\|" $OUT/primitives_cuda_$T.md | grep -E "\| (float32|int64) \|" | cut -c1-150
cd $OUT && tar czf /tmp/res72c.tgz * && rm -f $OUT/* && mv /tmp/res72c.tgz $OUT/
