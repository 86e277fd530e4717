python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=$(cat .devrun/tree); R=$PWD
export PYTHONPATH=$R:/tmp/site
# 1. GPU tests of the raw arrays' change
ROCARRAY_CACHE_DIR=$(mktemp -d) ROCARRAY_TEST_DEVICES=cuda:0 timeout 150 python3 -m pytest -q -p no:cacheprovider -n 4 tests/test_elementwise_kernel.py tests/test_gather_gpu.py tests/test_advanced_indexing.py tests/runtime/test_quick_launch.py tests/test_random.py > $OUT/gpu_tests_$T.txt 2>&1
tail -2 $OUT/gpu_tests_$T.txt; grep -E "FAILED|^E " $OUT/gpu_tests_$T.txt | head -10
# 2. before, the descriptor in registers, and that with a thread an element for kernels with no vector path
for round in 1 2; do
  PYTHONPATH=$R/.devrun/old65:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 .devrun/scalar_ab.py old >> $OUT/scalar_ab_$T.txt 2>&1
  PYTHONPATH=$R/.devrun/rawfix65:/tmp/site ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 .devrun/scalar_ab.py regs >> $OUT/scalar_ab_$T.txt 2>&1
  ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 90 python3 .devrun/scalar_ab.py regs+grid >> $OUT/scalar_ab_$T.txt 2>&1
done
grep -v Warn $OUT/scalar_ab_$T.txt | grep -v "random\|standard_normal\|x\[::2\]\|x.T" | cut -c1-150
