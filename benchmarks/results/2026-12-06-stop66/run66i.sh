python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree)
V="8:6 4:6 4:8 6:6"
for v in $V; do s=${v%:*}; b=${v#*:}; d=/tmp/v_${s}_${b}; mkdir -p $d; cp -r rocarray kernels $d/
  sed -i "s/^CHAIN_STEPS = .*/CHAIN_STEPS = $s/; s/^CHAIN_BLOCKS = .*/CHAIN_BLOCKS = $b/" $d/rocarray/compiler/reduction_chain.py; done
for round in 1 2; do for v in $V; do s=${v%:*}; b=${v#*:}
  PYTHONPATH=/tmp/v_${s}_${b}:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 30 python3 .devrun/scanvar.py r$round 2>&1 | grep -v Warn | cut -c1-220 | tee -a $OUT/scanvar_$T.txt
done; done
