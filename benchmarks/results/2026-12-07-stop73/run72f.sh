nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$PWD
export PYTHONUNBUFFERED=1
for v in new old new old; do case $v in old) PP=$R/.devrun/old72;; new) PP=$R;; esac
echo "=== $v"; PYTHONPATH=$PP:/tmp/site TREE=$v ROCARRAY_CACHE_DIR=$(mktemp -d) timeout 70 python3 .devrun/gap72.py 2>&1 | grep -v Warning | tee $OUT/gap_$v.txt | cut -c1-220
done
