"""Hypothesis settings for the property-based tests: one derandomized profile."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "rocarray-property",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("rocarray-property")
