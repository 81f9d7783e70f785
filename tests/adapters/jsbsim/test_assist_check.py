"""The JSBSim session checks, once the cockpit is up, that the aids the cockpit says it draws
(`/sim/rendering/assists`) are the ones the episode asked for: a cockpit that draws another (or
one older than assists, which drew its readout strip always) is a harness fault, never an
episode whose bundle says less than the agent saw."""

from __future__ import annotations

import pytest

from simbridge._errors import HarnessError
from simbridge.adapters.jsbsim._session import ASSISTS_PATH, JSBSimSession


class FakeTelnet:
    def __init__(self, value: str | None) -> None:
        self.value = value

    def get(self, path: str) -> str:
        assert path == ASSISTS_PATH
        if self.value is None:
            raise HarnessError(f"telnet: get {path}: -ERR no such node")
        return self.value


def _session(*assists: str) -> JSBSimSession:
    s = JSBSimSession()
    s.assists = assists
    return s


@pytest.mark.parametrize("asked, said", [((), ""), (("readout",), "readout")])
def test_the_aids_drawn_are_the_aids_asked_for(asked, said):
    s = _session(*asked)
    s._check_assists(FakeTelnet(said))
    assert s._drawn_assists == list(asked)
    assert s.info()["cockpit_assists"] == list(asked) and s.info()["assists"] == list(asked)


@pytest.mark.parametrize(
    "asked, said, message",
    [
        ((), "readout", "the cockpit draws readout, the episode asked for none"),
        (("readout",), "", "the cockpit draws no aid, the episode asked for readout"),
        ((), None, "does not say which aids it draws"),
    ],
)
def test_a_cockpit_drawing_other_aids_is_a_harness_fault(asked, said, message):
    with pytest.raises(HarnessError, match=message):
        _session(*asked)._check_assists(FakeTelnet(said))
