python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
timeout 330 python3 .devrun/suite.py 10 300 $OUT/suite_$T.txt > $OUT/suite_stdout_$T.txt 2>&1
grep TOTAL $OUT/suite_$T.txt
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -E "^=====|FAILED|TIMEOUT|^E  " | head -40
mkdir -p $OUT/fuzz
export PYTHONPATH=$R:$R/.devrun/fuzz
for s in 6421 6422 6423 6424 6425; do
  (cd .devrun/fuzz && ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_DEVICE=cuda:0 timeout 200 python3 fuzz.py $s 2.6 fancy_set,fancy_get,concat,cumulative,scan,mask_set,take,take_along > $OUT/fuzz/fail_$s.jsonl 2> $OUT/fuzz/progress_$s.txt) &
done
wait
for s in 6421 6422 6423 6424 6425; do tail -1 $OUT/fuzz/progress_$s.txt | cut -c1-200; done
cat $OUT/fuzz/fail_*.jsonl | grep -v '"info"' | grep -v "against the wide reference" | grep -v "cast bits" | cut -c1-300 | head -30
