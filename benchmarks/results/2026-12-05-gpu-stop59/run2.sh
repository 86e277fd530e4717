python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name|Thread|Socket"; grep -o "avx512[a-z]*" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
python3 -c "import numpy; print('numpy', numpy.__version__, numpy._core._multiarray_umath.__cpu_features__['AVX512_SKX'])"
for dt in float32 int32; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 60 python3 .devrun/second.py $dt; done > $OUT/second.txt 2>&1; grep -E "sort calls|drain" $OUT/second.txt
ROCARRAY_DEVICE=cpu ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 240 python3 benchmarks/bench_primitives.py --device cpu > $OUT/cpu16.md 2>&1; grep -E "^\| |threads|host" $OUT/cpu16.md | head -50
ROCARRAY_DEVICE=cpu ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 240 taskset -c 0,1 python3 benchmarks/bench_primitives.py --device cpu > $OUT/cpu2.md 2>&1; grep -E "^\| " $OUT/cpu2.md | head -50
