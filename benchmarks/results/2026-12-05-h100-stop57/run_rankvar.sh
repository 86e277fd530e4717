export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
for r in 1 2 3; do for v in now after none; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 30 python3 .devrun/rankvar.py $v 0.5; done; done
for r in 1 2; do for v in now none; do ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 30 python3 .devrun/rankvar.py $v 3; done; done
