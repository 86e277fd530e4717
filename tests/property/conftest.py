"""Hypothesis settings for the property tests: a derandomized profile (the same examples on
every run, on every device), no deadline (first calls compile kernels), bounded example
counts so that the folder runs in CI in a few minutes.

``HYPOTHESIS_PROFILE=rocarray-property-long`` draws many more (seeded at random,
for hunting bugs locally; a failure prints the ``@reproduce_failure`` blob to keep).  (No
ROCARRAY_ prefix: rocarray warns of a ROCARRAY_* variable that is none of its settings.)"""

import os

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    database=None,  # nothing written into the tree; failures print their reproducer
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large],
    print_blob=True,
)
# (the device fixture is a read-only Device per parametrization: reusing it across
# examples is safe, which is what the function_scoped_fixture check is about)
settings.register_profile("rocarray-property", derandomize=True, max_examples=50, **_COMMON)
settings.register_profile("rocarray-property-long", derandomize=False, max_examples=400, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "rocarray-property"))


@pytest.fixture(autouse=True, scope="package")
def _tier_ups_finished_after_the_package():
    """The examples make many kernels hot; their tier-up compiles (and the jobs those post)
    finish before the tests after this folder run, some of which patch the background hook
    and count the jobs posted while they run."""
    yield
    from rocarray.compiler.cache import drain_background

    drain_background()
