set -x
python3 .devrun/chaintest.py dtypes=float64,int64,float32 2>&1 | grep -v -i warn | tail -14
for v in "CHAIN_STEPS=4 CHAIN_BLOCKS=6" "CHAIN_STEPS=8 CHAIN_BLOCKS=6" "CHAIN_STEPS=4 CHAIN_BLOCKS=8" "CHAIN_STEPS=4 CHAIN_BLOCKS=4"; do
  python3 .devrun/chaintest.py time $v 2>&1 | grep -v -i warn | grep "chained\|passes"
done
