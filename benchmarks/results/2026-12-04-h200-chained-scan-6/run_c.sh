(timeout 240 python3 .devrun/chaintest.py notime CHAIN_STEPS=4 CHAIN_BLOCKS=6 2>&1 | grep -v -i warn | grep -v "^  k " | tail -30)
for v in "CHAIN_STEPS=4 CHAIN_BLOCKS=6" "CHAIN_STEPS=5 CHAIN_BLOCKS=5" "CHAIN_STEPS=4 CHAIN_BLOCKS=4" "CHAIN_STEPS=4 CHAIN_BLOCKS=6 CHAIN_EXP=3" "CHAIN_STEPS=4 CHAIN_BLOCKS=6 CHAIN_EXP=1"; do
  echo "== $v"
  timeout 90 python3 .devrun/chaintest.py time $v 2>&1 | grep -v -i warn | grep "chained\|passes\|attrs"
done
