# User kernels' warm table, 5e2abab's rocarray (kernels/ and rocarray/ under .devrun/old) and the tree's, alternating, three rounds.
for r in 1 2 3; do PYTHONPATH=$PWD/.devrun/old python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_old_$r.md 2>&1; PYTHONPATH=$PWD python3 .devrun/warm_uk.py cuda:0 > $OUT/uk_new_$r.md 2>&1; done
