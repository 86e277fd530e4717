for r in 1 2 3; do
  echo "old $(PYTHONPATH=$OLD ROCARRAY_CACHE_DIR=/tmp/s49cache_old /work/venv/bin/python smallprof.py mask nonzero take sort unique_counts searchsorted argsort 2>&1 | tr '\n' ' ')"
  echo "new $(PYTHONPATH=$NEW ROCARRAY_CACHE_DIR=/tmp/s49cache /work/venv/bin/python smallprof.py mask nonzero take sort unique_counts searchsorted argsort 2>&1 | tr '\n' ' ')"
done
