"""Shared settings for the suite: one hypothesis profile, no deadlines (SymPy's first call of
anything is slow, and a deadline would turn that into flakiness, not a finding)."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "derive",
    max_examples=50,
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow,),
)
settings.load_profile("derive")
