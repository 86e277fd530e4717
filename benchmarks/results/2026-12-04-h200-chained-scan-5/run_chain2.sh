python3 .devrun/chaintest.py dtypes=float64,int64,float32,int8 notime 2>&1 | grep -v -i warn | grep -v "^  k " | tail -6
for v in "CHAIN_LOOK_BACK=4 CHAIN_STEPS=8 CHAIN_BLOCKS=6" "CHAIN_LOOK_BACK=4 CHAIN_STEPS=10 CHAIN_BLOCKS=5" "CHAIN_LOOK_BACK=8 CHAIN_STEPS=8 CHAIN_BLOCKS=6" "CHAIN_LOOK_BACK=1 CHAIN_STEPS=8 CHAIN_BLOCKS=6" "CHAIN_LOOK_BACK=4 CHAIN_STEPS=10 CHAIN_BLOCKS=4"; do
  echo "== $v"
  python3 .devrun/chaintest.py time $v 2>&1 | grep -v -i warn | grep "chained\|passes"
done
