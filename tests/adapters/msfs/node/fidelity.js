// node-simconnect (an independent SimConnect client) against the SimConnect double.
// Usage: node fidelity.js PORT 2020|2024 FRAMES ; prints one JSON object per line.
'use strict';
const { open, Protocol, SimConnectPeriod, SimConnectDataType, SimConnectConstants, DataRequestFlag } =
    require('node-simconnect');

const [port, year, nFrames] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] || 20)];
const out = o => process.stdout.write(JSON.stringify(o) + '\n');
const F64 = SimConnectDataType.FLOAT64, I32 = SimConnectDataType.INT32, S32 = SimConnectDataType.STRING32;
const DEF = [
    ['SIMULATION TIME', 'number', F64], ['PLANE LATITUDE', 'degrees', F64], ['PLANE BANK DEGREES', 'radians', F64],
    ['PLANE ALTITUDE', 'feet', F64], ['COM ACTIVE FREQUENCY:1', 'MHz', F64], ['TRANSPONDER CODE:1', 'BCO16', I32],
    ['ATC ID', null, S32],
];
const read = (buf, type) => (type === F64 ? buf.readFloat64() : type === I32 ? buf.readInt32() : buf.readString32());

open('node-fidelity', year === '2024' ? Protocol.SunRise : Protocol.KittyHawk, { host: '127.0.0.1', port })
    .then(({ recvOpen, handle }) => {
        out({ open: { name: recvOpen.applicationName, version: [recvOpen.applicationVersionMajor,
            recvOpen.applicationVersionMinor, recvOpen.applicationBuildMajor, recvOpen.applicationBuildMinor] } });
        DEF.forEach(([name, units, type], i) => handle.addToDataDefinition(1, name, units, type, 0, i));
        const badId = handle.addToDataDefinition(2, 'PLANE BANK DEGREEZ', 'degrees', F64);
        handle.subscribeToSystemEvent(1, 'Pause');
        handle.mapClientEventToSimEvent(10, 'PAUSE_TOGGLE');
        handle.on('exception', e => out({ exception: { code: e.exception, sendId: e.sendId, expectedSendId: badId } }));
        const frames = [], tagged = [];
        let toggled = 0;
        handle.on('event', e => {
            out({ event: { id: e.clientEventId, data: e.data } });
            if (e.clientEventId === 1 && e.data === 1) handle.transmitClientEvent(0, 10, 0, 1, 0x10);  // unpause
            if (e.clientEventId === 1 && e.data === 0) { handle.close(); process.exit(0); }
        });
        handle.on('simObjectData', d => {
            if (d.requestID === 1) {
                frames.push(DEF.map(([, , type]) => read(d.data, type)));
            } else if (d.requestID === 2) {
                const pairs = {};
                for (let i = 0; i < d.defineCount; i++) {
                    const id = d.data.readUint32();
                    pairs[id] = read(d.data, DEF[id][2]);
                }
                tagged.push(pairs);
            }
            if (frames.length >= nFrames && tagged.length >= 3 && !toggled) {
                toggled = 1;
                out({ frames, tagged });
                handle.transmitClientEvent(0, 10, 0, 1, 0x10);  // pause: expect Pause 1, then 0
            }
        });
        handle.requestDataOnSimObject(1, 1, SimConnectConstants.OBJECT_ID_USER, SimConnectPeriod.SIM_FRAME, 0);
        handle.requestDataOnSimObject(2, 1, SimConnectConstants.OBJECT_ID_USER, SimConnectPeriod.SIM_FRAME,
            DataRequestFlag.DATA_REQUEST_FLAG_CHANGED | DataRequestFlag.DATA_REQUEST_FLAG_TAGGED);
    })
    .catch(err => { out({ error: String(err) }); process.exit(1); });
setTimeout(() => { out({ error: 'timeout' }); process.exit(2); }, 20000);
