set -x
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
timeout 200 python3 .devrun/chaintest.py notime 2>&1 | grep -v -i warn | tail -25
for v in "CHAIN_STEPS=8 CHAIN_BLOCKS=6" "CHAIN_STEPS=8 CHAIN_BLOCKS=4" "CHAIN_STEPS=4 CHAIN_BLOCKS=8" "CHAIN_STEPS=16 CHAIN_BLOCKS=3"; do
  timeout 90 python3 .devrun/chaintest.py time $v 2>&1 | grep -v -i warn | grep "chained\|passes\|torch\|attrs"
done
