for v in "CHAIN_EXP=0" "CHAIN_EXP=1" "CHAIN_EXP=2" "CHAIN_EXP=3" "CHAIN_EXP=1 CHAIN_BLOCKS=8 CHAIN_STEPS=4"; do
  echo "== $v"
  timeout 90 python3 .devrun/chaintest.py time CHAIN_BLOCKS=6 $v 2>&1 | grep -v -i warn | grep "chained\|passes\|attrs"
done
