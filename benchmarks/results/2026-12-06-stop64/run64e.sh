python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/pytest_xdist*.whl .whl/execnet*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site
T=$(cat .devrun/tree)
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 70 python3 -X faulthandler -m pytest -q -p no:cacheprovider tests/test_scan_chained.py > $OUT/scan_chained_alone_$T.txt 2>&1
echo "alone rc=$?"; tail -3 $OUT/scan_chained_alone_$T.txt
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 70 python3 -X faulthandler -m pytest -q -p no:cacheprovider -n 6 tests/test_scan_chained.py tests/test_primitives.py > $OUT/scan_chained_n6_$T.txt 2>&1
echo "n6 rc=$?"; tail -3 $OUT/scan_chained_n6_$T.txt; grep -n "Fatal Python\|Segmentation\|crashed\|File \"" $OUT/scan_chained_*_$T.txt | head -30
