export PYTHONUNBUFFERED=1
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export SUITE_FILES="$(ls tests/*.py tests/*/*.py | grep '/test_' | grep -v test_prop_elementwise | tr '\n' ' ')"
PYTHONFAULTHANDLER=1 timeout 240 python3 .devrun/suite.py 14 200 $OUT/suite_$T.txt > /tmp/suite_stdout.txt 2>&1
grep -a TOTAL $OUT/suite_$T.txt || (echo "cut short"; tail -5 /tmp/suite_stdout.txt)
sed -n '/^TOTAL/,$p' $OUT/suite_$T.txt | grep -a -E "^=====|FAILED|TIMEOUT|crashed|Fatal|^E  " | head -30
