export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$PWD
export PYTHONPATH=$R:$R/.devrun/fuzz
mkdir -p $OUT/fuzz
for s in 6401 6402 6403 6404 6405 6406 6407 6408 6409 6410; do
  (cd .devrun/fuzz && ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_DEVICE=cuda:0 timeout 560 python3 fuzz.py $s 8.5 > $OUT/fuzz/fail_$s.jsonl 2> $OUT/fuzz/progress_$s.txt) &
done
wait
for s in 6401 6402 6403 6404 6405 6406 6407 6408 6409 6410; do tail -1 $OUT/fuzz/progress_$s.txt; done
cat $OUT/fuzz/fail_*.jsonl | grep -v '"info"' | grep -v "against the wide reference" | cut -c1-400 | head -60
