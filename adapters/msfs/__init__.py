"""MSFS adapter: SimConnect over its TCP network protocol (any host) or SimConnect.dll (Windows).

Built from node-simconnect's reading of the protocol and proven against the protocol double in
`tests/doubles/simconnect_double.py` and against node-simconnect itself; never against a real
MSFS in this repository's tests.
"""

from simbridge.adapters.msfs._client import ClientException, DataFrame, Datum, SetupClosed, SimConnectClient
from simbridge.adapters.msfs._transport import DllTransport, SimConnectTransport, TcpTransport, make_transport
from simbridge.adapters.msfs._wire import DataType, Period, Protocol, RequestFlag

__all__ = [
    "ClientException",
    "DataFrame",
    "DataType",
    "Datum",
    "DllTransport",
    "MsfsRecorder",
    "MsfsSession",
    "Period",
    "Protocol",
    "RequestFlag",
    "SetupClosed",
    "SimConnectClient",
    "SimConnectTransport",
    "TcpTransport",
    "make_transport",
]


def __getattr__(name: str):  # the session and recorder load the bundle machinery only when used
    if name == "MsfsSession":
        from simbridge.adapters.msfs._session import MsfsSession

        return MsfsSession
    if name == "MsfsRecorder":
        from simbridge.adapters.msfs._recorder import MsfsRecorder

        return MsfsRecorder
    raise AttributeError(name)
