echo "# $(lscpu | grep 'Model name' | sed 's/  */ /g') ($(nproc) vCPUs), NumPy $(/work/venv/bin/python -c 'import numpy; print(numpy.__version__)'), Python $(/work/venv/bin/python -c 'import sys; print(sys.version.split()[0])'); old: 60bf66d (git worktree), new: 725980c; each line a fresh process with an empty ROCARRAY_CACHE_DIR, old and new in turn, five rounds"
echo "# command: ROCARRAY_CACHE_DIR=\$(mktemp -d) PYTHONPATH=<tree> python cs3.py <tree> <dtype> <values> <n>   (cs3.py: ra.sort and np.sort of one line of <values> values, medians of 15 calls; ratio = NumPy / rocarray)"
for rep in 1 2 3 4 5; do
for cfg in "int32 3 4194304" "int32 4 4194304" "int16 9 4194304" "int16 12 4194304" "int8 4 4194304" "bool 2 4194304" "int32 3 262144" "bool 2 262144" "int32 2001 4194304" "int64 3 4194304"; do
  for tree in old63 main; do
    ROCARRAY_CACHE_DIR=$(mktemp -d) PYTHONPATH=/work/$tree /work/venv/bin/python /tmp/cs3.py $tree $cfg
  done
done
done
