for v in "CHAIN_STEPS=8 CHAIN_BLOCKS=6 CHAIN_EXP=8" "CHAIN_STEPS=4 CHAIN_BLOCKS=6 CHAIN_EXP=0" "CHAIN_STEPS=8 CHAIN_BLOCKS=4 CHAIN_EXP=8" "CHAIN_STEPS=4 CHAIN_BLOCKS=8 CHAIN_EXP=8"; do
  echo "== $v"
  timeout 90 python3 .devrun/chaintest.py time $v 2>&1 | grep -v -i warn | grep "chained\|passes\|torch"
done
timeout 200 python3 .devrun/chaintest.py notime CHAIN_STEPS=8 CHAIN_BLOCKS=6 CHAIN_EXP=8 2>&1 | grep -v -i warn | grep -v "^  k " | tail -14
