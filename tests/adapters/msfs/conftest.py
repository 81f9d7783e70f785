"""The SimConnect protocol double (not MSFS) on a free loopback port, stopped after each test."""

import pytest
from doubles.simconnect_double import SimConnectDouble

from simbridge.adapters.msfs import SimConnectClient, TcpTransport


@pytest.fixture
def double():
    d = SimConnectDouble(hz=60.0).start()
    yield d
    d.stop()


@pytest.fixture
def client_for():
    made = []

    def make(d, **kw):
        c = SimConnectClient(lambda: TcpTransport("127.0.0.1", d.port, **kw), app_name="simbridge-test")
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
