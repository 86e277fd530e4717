#!/bin/bash
python3 -m pip install -q --no-index --no-deps .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=$PWD
cp .devrun/commit.txt $OUT/commit.txt
SUITE_FILES="tests/test_set_functions.py tests/test_sorting.py tests/test_gather_gpu.py tests/test_manipulation_functions.py tests/test_manipulation_more.py tests/test_searchsorted.py tests/test_network_sort.py tests/test_radix_gpu.py tests/test_compaction_gpu.py tests/test_compaction.py tests/test_radix_sort.py tests/property/test_prop_sorting.py tests/test_array_object.py tests/test_indexing.py tests/test_advanced_indexing.py" timeout 300 python3 .devrun/suite.py 15 240 $OUT/suite_part.txt > /dev/null 2>&1
cat $OUT/suite_part.txt | head -40
