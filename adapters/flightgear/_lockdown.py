"""Lockdown of FlightGear's in-simulator escape hatches (catalog: no Nasal console, no property
browser, no reset/time warp, no dialogs the task does not need).

Applied at launch, because FlightGear reads key bindings once (input subsystem `postinit`)
after the `--config` files are merged into the property tree:

- `/sim/menubar/visibility=false` and the Debug menu (`menu[8]`: Nasal console, REPL,
  property browser) disabled. A task whose work is in FlightGear's own dialogs (T08: time,
  weather, failures) gets the menubar shown with only its menus and items enabled
  (`TASK_MENUS`); every other menu, the Debug menu and the aircraft's own menu are disabled.
- Every keyboard binding (`/input/keyboard/key[n]`, all `binding[i]` in all `mod-*` branches)
  outside `KEY_WHITELIST` is overwritten with the `null` command. The bindings are found in
  `keyboard.xml` and in the aircraft's -set.xml with all its includes (the c172p pulls in
  walker keys through `walker-include.xml`), and at least `MIN_NULLED` bindings per branch
  are nulled so a source the parser missed cannot keep a live binding.
- A whitelisted key keeps only its own binding: its Ctrl/Alt/Meta/Super branches are nulled
  (keyboard.xml binds Ctrl+Enter, key 10 `mod-ctrl`, to the Map dialog), and it is made
  non-`repeatable`. The X server repeats a held key on the wall clock (660 ms delay, then
  25 Hz; XTEST keys too, whatever the core or XKB auto-repeat controls say), and FlightGear
  fires a `repeatable` binding (throttle, mixture, elevator, trim...) on every repeat, paused
  or not: in lockstep a 0.01 s PageUp tap whose simulator step took seconds of wall time moved
  the throttle 0 -> 0.84. Non-repeatable, each press fires once in both pacing modes:
  an agent taps a key `repeat` times to move further.
- **Fixed key steps.** The c172p replaces `controls.incThrottle` and `controls.adjMixture` with
  steps of 0.33 x `/sim/time/delta-realtime-sec` per press: the wall time of the frame, which
  in lockstep has nothing to do with simulator time (one PageUp press measured +0.165 at 2 fps,
  ~+0.03 at 10 fps). The lockdown's Nasal module puts back fixed steps once the aircraft's
  Nasal is loaded (`fdm-initialized`): PageUp/PageDown/9/3 move the throttle by keyboard.xml's
  per-tap step (0.01), m/M the mixture by 0.05, as in the embedded JSBSim cockpit.
- **Automation** is off, by a Nasal module the `--config` file adds (`/nasal/simbridge_lockdown`,
  loaded with FlightGear's own modules, after the aircraft's -set.xml): every `binding` of the
  aircraft's checklists (`/sim/checklists/**/item/binding`) is removed, so the checklist dialog
  (Help -> Aircraft Checklists, and the c172p's clickable checklist in the left door pocket)
  has no `>` buttons that would set magnetos, master, primer, mixture and throttle; and
  `/sim/speed-up` is held at 1 by a listener (Time Settings' "Simulation Rate +" cannot push the
  simulator past the per-frame step cap). The module publishes what it did under
  `LOCKDOWN_STATUS` (`checklist-bindings-live` counted after the removal), which the audit
  reads back.
- The aircraft's own menus (the c172p's menu 10, the Walker menu 11) are disabled.
- The HTTP server is not started at all (no `--httpd`), so `/json`, `/props`, `/run.cgi`,
  `/screenshot` and `/fg-home` do not exist; the URI handlers are emptied as well in case a
  later option turns it on.
- Nasal from sockets stays off (never `--allow-nasal-from-sockets`): telnet `nasal` is refused.

**Telnet cannot be bound to one interface**: FlightGear 2020.3 ignores the host field of
`--telnet=socket,bi,HZ,HOST,PORT,tcp` and listens on 0.0.0.0. It accepts `set` and
`run exit|reset|dialog-show` without authentication, so the isolation provider's firewall
(or network namespace) must keep the agent's sandbox from reaching the telnet port; the
harness reaches it over loopback. `TELNET_BINDS_ALL_INTERFACES` records that fact for the
isolation report.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

TELNET_BINDS_ALL_INTERFACES = True

#: keys the catalog's c172p tasks need (FlightGear key codes: ASCII, special keys 256+)
KEY_WHITELIST: dict[int, str] = {
    10: "Enter (rudder right)",
    13: "Enter (rudder right)",
    269: "keypad Enter (rudder right)",
    364: "Insert (rudder left)",
    309: "keypad 5 (centre controls)",
    44: ", (left brake)",
    46: ". (right brake)",
    98: "b (brakes)",
    66: "B (parking brake)",
    48: "0 (rudder left)",
    49: "1 (trim down)",
    50: "2 (elevator up)",
    51: "3 (throttle down)",
    52: "4 (aileron left)",
    53: "5 (centre)",
    54: "6 (aileron right)",
    55: "7 (trim up)",
    56: "8 (elevator down)",
    57: "9 (throttle up)",
    356: "Left",
    357: "Up",
    358: "Right",
    359: "Down",
    360: "PageUp (throttle up)",
    361: "PageDown (throttle down)",
    362: "Home (trim)",
    363: "End (trim)",
    109: "m (mixture richer)",
    77: "M (mixture leaner)",
    115: "s (starter)",
    123: "{ (magnetos down)",
    125: "} (magnetos up)",
    91: "[ (flaps up)",
    93: "] (flaps down)",
    108: "l (panel lights +)",
    76: "L (panel lights -)",
    79: "O (dome light)",
    102: "f (flashlight)",
    70: "F (flashlight)",
    121: "y (hide yokes)",
    118: "v (next view)",
    86: "V (previous view)",
    120: "x (zoom in)",
    88: "X (zoom out)",
    24: "Ctrl-X (reset zoom)",
    81: "Q (reset view)",
    113: "q (seat view)",
}

#: extra keys a task needs on top of the whitelist, by catalog task (base id)
TASK_EXTRA_KEYS: dict[str, dict[int, str]] = {
    "T15": {265: "F9 (c172p fuel and payload dialog)"},
}

#: the menubar items a task works in, by catalog task (base id): menu name -> item names, from
#: fgdata's gui/menubar.xml. A task listed here gets the menubar shown with only these enabled.
TASK_MENUS: dict[str, dict[str, tuple[str, ...]]] = {
    "T08": {
        "location": ("goto-airport",),
        "environment": ("global-weather", "environment-settings", "time-settings"),
        "equipment": ("failure-submenu", "random-failures", "system-failures", "instrument-failures"),
    },
}

#: the aircraft's own menus (the c172p adds `menu n="10"`, its autostart among them, and
#: fgdata's walker-include.xml the Walker menu `menu n="11"`), disabled with the rest when the
#: menubar is shown
AIRCRAFT_MENU_INDICES = (10, 11)

#: modifier branches nulled on whitelisted keys (Ctrl+Enter opens the Map dialog)
MODIFIER_BRANCHES_NULLED = ("mod-ctrl", "mod-alt", "mod-meta", "mod-super", "mod-hyper")

#: where the lockdown's Nasal module reports what it did (read back by the audit)
LOCKDOWN_STATUS = "/sim/simbridge/lockdown"

#: the Nasal module the `--config` file installs (see the module docstring)
LOCKDOWN_NASAL = """
var status = props.globals.getNode("LOCKDOWN_STATUS", 1);
var add = func(name, by) {
    var n = status.getNode(name, 1);
    var v = n.getValue();
    n.setIntValue((v == nil ? 0 : v) + by);
};
var count_bindings = func(node) {
    var n = size(node.getChildren("binding"));
    foreach (var c; node.getChildren()) {
        if (c.getName() != "binding") n += count_bindings(c);
    }
    return n;
};
var strip_bindings = func(node) {
    var n = 0;
    foreach (var b; node.getChildren("binding")) { b.remove(); n += 1; }
    foreach (var c; node.getChildren()) { n += strip_bindings(c); }
    return n;
};
var strip_checklists = func {
    var root = props.globals.getNode("/sim/checklists");
    var removed = root == nil ? 0 : strip_bindings(root);
    add("checklist-bindings-removed", removed);
    status.getNode("checklist-bindings-live", 1).setIntValue(root == nil ? 0 : count_bindings(root));
};
strip_checklists();
var clamp01 = func(v) { return v < 0 ? 0 : (v > 1 ? 1 : v); };
var step_engines = func(name, step) {
    var node = props.globals.getNode("/controls/engines/current-engine/" ~ name);
    var nodes = node != nil ? [node] : [];
    if (node == nil) {
        foreach (var e; props.globals.getNode("/controls/engines", 1).getChildren("engine"))
            append(nodes, e.getNode(name, 1));
    }
    foreach (var n; nodes) {
        var v = n.getValue();
        n.setDoubleValue(clamp01((v == nil ? 0 : v) + step));
    }
};
var fix_key_steps = func {
    controls.incThrottle = func { step_engines("throttle", arg[0]); };
    controls.adjMixture = func(speed) { step_engines("mixture", MIXTURE_STEP * speed); };
    status.getNode("fixed-key-steps", 1).setBoolValue(1);
};
setlistener("/sim/signals/fdm-initialized", func { strip_checklists(); fix_key_steps(); });
var hold_speed_up = func(n) {
    if (n.getValue() != 1) {
        add("speed-up-refused", 1);
        n.setDoubleValue(1);
    }
};
setlistener("/sim/speed-up", hold_speed_up, 1, 0);
status.getNode("speed-up-held", 1).setBoolValue(1);
status.getNode("loaded", 1).setBoolValue(1);
""".replace("LOCKDOWN_STATUS", LOCKDOWN_STATUS).replace("MIXTURE_STEP", "0.05")

#: bindings nulled per key branch even where the parsed sources define fewer
MIN_NULLED = 4


def _count_bindings(elem: ET.Element, prefix: str, out: dict[str, int]) -> None:
    n = len(elem.findall("binding"))
    if n:
        out[prefix] = max(out.get(prefix, 0), n)
    for child in elem:
        if child.tag.startswith("mod-"):
            _count_bindings(child, f"{prefix}/{child.tag}" if prefix else child.tag, out)


def _resolve(include: str, here: Path, fg_root: Path, aircraft_dir: Path) -> Path | None:
    for base in (here.parent, aircraft_dir, fg_root):
        p = base / include
        if p.is_file():
            return p
    return None


def _collect_keys(
    path: Path,
    at_keyboard: bool,
    fg_root: Path,
    aircraft_dir: Path,
    out: dict[int, dict[str, int]],
    seen: set[tuple[Path, bool]],
) -> None:
    """Keys defined in `path` and everything it includes. `at_keyboard`: the file's root is
    mounted at /input/keyboard (it was included by a `<keyboard include=...>` element)."""
    if (path, at_keyboard) in seen:
        return
    seen.add((path, at_keyboard))
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return

    def walk(elem: ET.Element, in_keyboard: bool, parent_tag: str) -> None:
        here_kb = in_keyboard or (elem.tag == "keyboard" and parent_tag == "input")
        inc = elem.get("include")
        if inc:
            target = _resolve(inc, path, fg_root, aircraft_dir)
            if target is not None:
                _collect_keys(target, here_kb, fg_root, aircraft_dir, out, seen)
        for child in elem:
            key_n = child.get("n") or ""
            if here_kb and child.tag == "key" and key_n.isdigit():
                _count_bindings(child, "", out.setdefault(int(key_n), {}))
            else:
                walk(child, False, elem.tag)

    walk(root, at_keyboard, "")


def aircraft_files(fg_root: Path, aircraft: str) -> list[Path]:
    """fgdata's keyboard.xml and the aircraft's -set.xml (whose includes are followed)."""
    files = [fg_root / "keyboard.xml"]
    set_xml = fg_root / "Aircraft" / aircraft.split("-")[0] / f"{aircraft}-set.xml"
    if set_xml.exists():
        files.append(set_xml)
    return files


def keyboard_bindings(fg_root: Path, aircraft: str) -> dict[int, dict[str, int]]:
    """key code -> {branch ('' or 'mod-shift' or 'mod-shift/mod-ctrl'...): number of bindings},
    from keyboard.xml and every `input/keyboard/key` the aircraft's -set.xml includes."""
    keys: dict[int, dict[str, int]] = {}
    seen: set[tuple[Path, bool]] = set()
    aircraft_dir = fg_root / "Aircraft" / aircraft.split("-")[0]
    for f in aircraft_files(fg_root, aircraft):
        _collect_keys(f, f.name == "keyboard.xml", fg_root, aircraft_dir, keys, seen)
    return keys


def menu_overrides(fg_root: Path, menus: dict[str, tuple[str, ...]]) -> list[str]:
    """`--prop:` options that disable every menu of fgdata's menubar not in `menus`, every item
    of those menus not listed, and the aircraft's own menus. Indices follow gui/menubar.xml's
    order (the order FlightGear loads them into /sim/menubar/default)."""
    root = ET.parse(fg_root / "gui" / "menubar.xml").getroot()
    out: list[str] = []
    found = set()
    for i, menu in enumerate(root.findall("menu")):
        name = menu.findtext("name", "")
        base = f"--prop:/sim/menubar/default/menu[{i}]"
        if name not in menus:
            out.append(f"{base}/enabled=false")
            continue
        found.add(name)
        for j, item in enumerate(menu.findall("item")):
            if item.findtext("name", "") not in menus[name]:
                out.append(f"{base}/item[{j}]/enabled=false")
    missing = sorted(set(menus) - found)
    if missing:
        raise ValueError(f"{fg_root / 'gui' / 'menubar.xml'}: no menu named {', '.join(missing)}")
    out += [f"--prop:/sim/menubar/default/menu[{i}]/enabled=false" for i in AIRCRAFT_MENU_INDICES]
    return out


def render_lockdown(fg_root: Path, aircraft: str, allowed: dict[int, str], *, menubar_visible: bool = False) -> str:
    """The `--config` XML: menubar hidden (unless the task works in its dialogs), HTTP handlers
    emptied, non-whitelisted keys nulled."""
    keys = keyboard_bindings(fg_root, aircraft)
    visible = "true" if menubar_visible else "false"
    out = [
        '<?xml version="1.0"?>',
        "<!-- simbridge lockdown: generated; see adapters/flightgear/_lockdown.py -->",
        "<PropertyList>",
        " <sim>",
        f'  <menubar><visibility type="bool">{visible}</visibility></menubar>',
        "  <http>",
        '   <uri-handler><run type="string"></run><property type="string"></property>'
        '<screenshot type="string"></screenshot><pkg type="string"></pkg><json type="string"></json></uri-handler>',
        "   <options><enable-directory-listing>no</enable-directory-listing></options>",
        "  </http>",
        " </sim>",
        " <nasal><simbridge_lockdown><script><![CDATA[" + LOCKDOWN_NASAL + "]]></script></simbridge_lockdown></nasal>",
        " <input>",
        "  <keyboard>",
    ]
    for code in sorted(keys):
        if code in allowed:
            # the key's own binding stays, fired once per press; what it does with Ctrl/Alt/Meta
            # held does not
            branches = {b: n for b, n in keys[code].items() if any(m in b.split("/") for m in MODIFIER_BRANCHES_NULLED)}
        else:
            branches = dict(keys[code])
            for branch in ("", "mod-up"):  # a source the parser missed cannot keep a live binding
                branches[branch] = max(branches.get(branch, 0), MIN_NULLED)
        body = []
        for branch, count in sorted(branches.items()):
            bindings = "".join(f'<binding n="{i}"><command>null</command></binding>' for i in range(count))
            if branch:
                parts = branch.split("/")
                body.append("".join(f"<{b}>" for b in parts) + bindings + "".join(f"</{b}>" for b in reversed(parts)))
            else:
                body.append(bindings)
        repeat = '<repeatable type="bool">false</repeatable>' if code in allowed else ""
        out.append(f'   <key n="{code}">' + repeat + "".join(body) + "</key>")
    out += ["  </keyboard>", " </input>", "</PropertyList>", ""]
    return "\n".join(out)


#: `--prop:` overrides that must come after the aircraft is loaded (menus live in fgdata)
PROP_OVERRIDES: tuple[str, ...] = (
    "--prop:/sim/menubar/default/menu[8]/enabled=false",
    *(f"--prop:/sim/menubar/default/menu[{i}]/enabled=false" for i in AIRCRAFT_MENU_INDICES),
)
