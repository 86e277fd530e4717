# the branch single-pass-compaction applied to this tree, its tests on cuda:0, then bench_primitives and bench_bounds
(git apply .devrun/spc.patch 2>/dev/null || patch -p1 -s < .devrun/spc.patch) && echo "patch applied" && grep -c chained_start rocarray/compiler/compact_gpu.py
echo spc80 > .devrun/tree
bash .devrun/run80a.sh
