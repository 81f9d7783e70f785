/*
 * simbridge FMS probe: a native X-Plane plugin that answers the harness's FMS request.
 *
 * FMS legs are not datarefs; only a plugin can call the XPLM navigation API. This plugin
 * listens on UDP (port SIMBRIDGE_FMS_PORT, default 49010; firewall it to the harness host like
 * X-Plane's own ports) and, on the simulator's main thread (a flight loop callback, as the SDK
 * requires), answers each `FMSQ\0` datagram with the FMS entries, in the layout documented in
 * adapters/xplane/_fms.py:
 *
 *   `FMSL\0` i32 count, i32 destination index, then per entry:
 *   i32 nav type, i32 nav ref, i32 altitude ft, f32 lat, f32 lon, u8 id length, id
 *
 * It is a compiled plugin, not a scripting host: nothing inside the sandbox can use it to write
 * datarefs, and it only reads the FMS. Linux build (POSIX sockets; XPLM symbols are resolved by
 * X-Plane when it loads the plugin, so no SDK library is linked):
 *
 *   gcc -shared -fPIC -O2 -o simbridge_fms/64/lin.xpl simbridge_fms.c
 *
 * then copy the simbridge_fms folder into X-Plane's Resources/plugins/. Status: compiles; not
 * yet loaded into a real X-Plane (none is available to this project's tests).
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PLUGIN_API __attribute__((visibility("default")))

/* The XPLM entry points used, as declared in the X-Plane SDK (XPLMNavigation.h, XPLMProcessing.h). */
typedef int XPLMNavType;
typedef int XPLMNavRef;
typedef int XPLMPluginID;
typedef float (*XPLMFlightLoop_f)(float inElapsedSinceLastCall, float inElapsedTimeSinceLastFlightLoop,
                                  int inCounter, void *inRefcon);
extern int XPLMCountFMSEntries(void);
extern int XPLMGetDestinationFMSEntry(void);
extern void XPLMGetFMSEntryInfo(int inIndex, XPLMNavType *outType, char *outID, XPLMNavRef *outRef,
                                int *outAltitude, float *outLat, float *outLon);
extern void XPLMRegisterFlightLoopCallback(XPLMFlightLoop_f inFlightLoop, float inInterval, void *inRefcon);
extern void XPLMUnregisterFlightLoopCallback(XPLMFlightLoop_f inFlightLoop, void *inRefcon);

#define MAX_REPLY 65000
static int g_sock = -1;

static void put_i32(unsigned char **p, int32_t v) { memcpy(*p, &v, 4); *p += 4; }  /* x86/ARM: little endian */
static void put_f32(unsigned char **p, float v) { memcpy(*p, &v, 4); *p += 4; }

static size_t build_reply(unsigned char *buf) {
    unsigned char *p = buf;
    int count = XPLMCountFMSEntries();
    memcpy(p, "FMSL", 5);  /* 4 letters and the NUL */
    p += 5;
    unsigned char *count_at = p;
    put_i32(&p, count);
    put_i32(&p, XPLMGetDestinationFMSEntry());
    int written = 0;
    for (int i = 0; i < count; i++) {
        XPLMNavType type = 0;
        XPLMNavRef ref = 0;
        int alt = 0;
        float lat = 0, lon = 0;
        char id[256] = {0};
        XPLMGetFMSEntryInfo(i, &type, id, &ref, &alt, &lat, &lon);
        size_t n = strnlen(id, 255);
        if ((size_t)(p - buf) + 21 + n > MAX_REPLY) break;
        put_i32(&p, type);
        put_i32(&p, ref);
        put_i32(&p, alt);
        put_f32(&p, lat);
        put_f32(&p, lon);
        *p++ = (unsigned char)n;
        memcpy(p, id, n);
        p += n;
        written++;
    }
    memcpy(count_at, &written, 4);
    return (size_t)(p - buf);
}

static float poll_requests(float since_last, float since_loop, int counter, void *refcon) {
    (void)since_last; (void)since_loop; (void)counter; (void)refcon;
    unsigned char req[64];
    struct sockaddr_in from;
    for (int k = 0; k < 8; k++) {  /* a few requests per frame at most */
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(g_sock, req, sizeof req, 0, (struct sockaddr *)&from, &len);
        if (n < 4) break;
        if (memcmp(req, "FMSQ", 4) != 0) continue;
        static unsigned char reply[MAX_REPLY];
        size_t m = build_reply(reply);
        sendto(g_sock, reply, m, 0, (struct sockaddr *)&from, len);
    }
    return -1.0f;  /* call again next frame */
}

PLUGIN_API int XPluginStart(char *outName, char *outSig, char *outDesc) {
    strcpy(outName, "simbridge FMS probe");
    strcpy(outSig, "org.simbridge.fmsprobe");
    strcpy(outDesc, "Answers the simbridge harness's FMS leg requests over UDP (read-only).");
    return 1;
}

PLUGIN_API int XPluginEnable(void) {
    const char *env = getenv("SIMBRIDGE_FMS_PORT");
    int port = env ? atoi(env) : 49010;
    g_sock = socket(AF_INET, SOCK_DGRAM, 0);
    if (g_sock < 0) return 0;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(g_sock, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(g_sock);
        g_sock = -1;
        return 0;
    }
    fcntl(g_sock, F_SETFL, fcntl(g_sock, F_GETFL, 0) | O_NONBLOCK);
    XPLMRegisterFlightLoopCallback(poll_requests, -1.0f, NULL);
    return 1;
}

PLUGIN_API void XPluginDisable(void) {
    XPLMUnregisterFlightLoopCallback(poll_requests, NULL);
    if (g_sock >= 0) close(g_sock);
    g_sock = -1;
}

PLUGIN_API void XPluginStop(void) {}

PLUGIN_API void XPluginReceiveMessage(XPLMPluginID inFrom, int inMsg, void *inParam) {
    (void)inFrom; (void)inMsg; (void)inParam;
}
