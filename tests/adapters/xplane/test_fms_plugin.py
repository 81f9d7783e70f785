"""The FMS probe plugin's C source, built here and loaded with a stub of the XPLM API.

The stub stands in for X-Plane (two fixed FMS entries and a flight-loop driver); what is tested
is that the plugin's reply, as the C code writes it, decodes with the harness's Python client.
"""

import ctypes
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from simbridge.adapters.kit import free_port
from simbridge.adapters.xplane import FmsProbeClient

PLUGIN_C = Path(__file__).resolve().parents[3] / "adapters" / "xplane" / "plugin" / "simbridge_fms.c"

STUB_C = r"""
#include <string.h>
typedef float (*cb_t)(float, float, int, void *);
static cb_t g_cb;
static void *g_ref;
int XPLMCountFMSEntries(void) { return 2; }
int XPLMGetDestinationFMSEntry(void) { return 1; }
void XPLMGetFMSEntryInfo(int i, int *t, char *id, int *ref, int *alt, float *lat, float *lon) {
    if (i == 0) { *t = 1; strcpy(id, "KPAO"); *ref = 11; *alt = 7; *lat = 37.5f; *lon = -122.25f; }
    else { *t = 4; strcpy(id, "OSI"); *ref = 22; *alt = 7500; *lat = 37.25f; *lon = -122.5f; }
}
void XPLMRegisterFlightLoopCallback(cb_t f, float interval, void *r) { (void)interval; g_cb = f; g_ref = r; }
void XPLMUnregisterFlightLoopCallback(cb_t f, void *r) { (void)f; (void)r; g_cb = 0; }
float stub_run_frame(void) { return g_cb ? g_cb(0.01f, 0.01f, 0, g_ref) : 0.0f; }
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the plugin")
def test_plugin_reply_decodes_with_the_harness_client(tmp_path, monkeypatch):
    stub_c = tmp_path / "stub.c"
    stub_c.write_text(STUB_C)
    stub_so, plugin_so = tmp_path / "libxplmstub.so", tmp_path / "lin.xpl"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(stub_so), str(stub_c)], check=True, timeout=60)
    subprocess.run(
        ["gcc", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-O2", "-o", str(plugin_so), str(PLUGIN_C)],
        check=True,
        timeout=60,
    )
    stub = ctypes.CDLL(str(stub_so), mode=ctypes.RTLD_GLOBAL)
    stub.stub_run_frame.restype = ctypes.c_float
    plugin = ctypes.CDLL(str(plugin_so))
    port = free_port(socket.SOCK_DGRAM)
    monkeypatch.setenv("SIMBRIDGE_FMS_PORT", str(port))
    name, sig, desc = (ctypes.create_string_buffer(256) for _ in range(3))
    assert plugin.XPluginStart(name, sig, desc) == 1 and name.value == b"simbridge FMS probe"
    assert plugin.XPluginEnable() == 1
    stop = threading.Event()

    def frames() -> None:  # X-Plane's main loop, at 100 fps
        while not stop.is_set():
            stub.stub_run_frame()
            time.sleep(0.01)

    t = threading.Thread(target=frames, daemon=True)
    t.start()
    client = FmsProbeClient("127.0.0.1", port, timeout_s=0.5)
    try:
        snap = client.snapshot()
    finally:
        client.close()
        stop.set()
        t.join(2)
        plugin.XPluginDisable()
    legs = snap["legs"]
    assert [(e["ident"], e["nav_type"], e["nav_ref"], e["alt_ft"], e["lat_deg"], e["lon_deg"]) for e in legs] == [
        ("KPAO", 1, 11, 7, 37.5, -122.25),
        ("OSI", 4, 22, 7500, 37.25, -122.5),
    ]
    assert snap["destination_index"] == 1 and snap["origin"] == "KPAO" and legs[1]["kind"] == "vor"
