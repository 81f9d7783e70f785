import pytest

from doubles.xplane_double import Pilot, XPlaneDouble


@pytest.fixture
def double():
    with XPlaneDouble() as d:
        yield d


@pytest.fixture
def flying_double():
    """The scripted pilot takes off from KSEA 34R and holds 3,000 ft / 340° / 90 kt; 10x sim speed."""
    with XPlaneDouble(pilot=Pilot(), time_scale=10.0) as d:
        yield d
