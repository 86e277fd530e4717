python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree); R=$PWD
V="8:6 10:5 12:4"
for v in $V; do s=${v%:*}; b=${v#*:}; d=/tmp/v_${s}_${b}; mkdir -p $d; cp -r rocarray kernels $d/
  sed -i "s/^CHAIN_STEPS = .*/CHAIN_STEPS = $s/; s/^CHAIN_BLOCKS = .*/CHAIN_BLOCKS = $b/" $d/rocarray/compiler/reduction_chain.py; done
run() { for v in $V; do s=${v%:*}; b=${v#*:}
  PYTHONPATH=/tmp/v_${s}_${b}:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 25 python3 .devrun/scanvar.py $1 2>&1 | grep -v Warn | cut -c1-220 | tee -a $OUT/scanvar_$T.txt; done; }
run r1
for v in 10:5 12:4; do s=${v%:*}; b=${v#*:}
  (cd /tmp && PYTHONPATH=/tmp/v_${s}_${b}:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 45 python3 -m pytest -q -x -p no:cacheprovider $R/tests/test_scan_chained.py 2>&1 | tail -2 | sed "s/^/tests $v: /" | tee -a $OUT/scanvar_$T.txt); done
run r2
