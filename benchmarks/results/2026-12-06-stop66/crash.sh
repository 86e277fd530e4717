# the xdist worker crash: repeat -n 6 runs of the files where it was seen, cores kept
R=$PWD; PY=$(readlink -f $(which python3))
ulimit -c unlimited; mkdir -p /tmp/cores; (echo "/tmp/cores/core.%p" > /proc/sys/kernel/core_pattern) 2>&1; cat /proc/sys/kernel/core_pattern
end=$((SECONDS + $1)); i=0
while [ $SECONDS -lt $end ]; do i=$((i+1))
  ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 PYTHONFAULTHANDLER=1 timeout $((end - SECONDS + 5)) python3 -m pytest -q -p no:cacheprovider -n 6 tests/test_advanced_indexing.py tests/test_scan_chained.py tests/test_elementwise_kernel.py tests/test_compaction_gpu.py > /tmp/crash_$i.txt 2>&1
  echo "run $i: $(tail -1 /tmp/crash_$i.txt)"
  if grep -q "crashed\|Fatal\|Segmentation" /tmp/crash_$i.txt; then cp /tmp/crash_$i.txt $OUT/crash_run.txt; break; fi
done
ls -la /tmp/cores $R/core* 2>/dev/null | head; mv $R/core* /tmp/cores/ 2>/dev/null
for c in $(ls /tmp/cores/core* 2>/dev/null | head -1); do timeout 60 cuda-gdb -batch -ex "info threads" -ex "thread apply all bt 25" $PY $c > $OUT/bt.txt 2>&1; grep -B2 -A30 "SIGSEGV\|signal 11" $OUT/bt.txt | head -60; done
