"""Key names: the agent port's vocabulary (X keysym spelling plus its aliases, `_agent_port._input`)
mapped to pyautogui's names, so one action means the same key on an X display and in a guest."""

from __future__ import annotations

from simbridge._agent_port._input import _ALIASES, split_combo
from simbridge._errors import SimbridgeError

#: X keysym name (after the port's aliases) -> pyautogui key name
X_TO_PYAUTOGUI = {
    "Return": "enter",
    "KP_Enter": "kp_enter",  # added to pyautogui's X11 table by the service; elsewhere: FALLBACK
    "Escape": "esc",
    "Tab": "tab",
    "BackSpace": "backspace",
    "Delete": "delete",
    "Insert": "insert",
    "Home": "home",
    "End": "end",
    "Prior": "pageup",
    "Page_Up": "pageup",
    "Next": "pagedown",
    "Page_Down": "pagedown",
    "Up": "up",
    "Down": "down",
    "Left": "left",
    "Right": "right",
    "space": "space",
    "Control_L": "ctrlleft",
    "Control_R": "ctrlright",
    "Alt_L": "altleft",
    "Alt_R": "altright",
    "Shift_L": "shiftleft",
    "Shift_R": "shiftright",
    "Super_L": "winleft",
    "Super_R": "winright",
    "Caps_Lock": "capslock",
    "Num_Lock": "numlock",
    "Scroll_Lock": "scrolllock",
    "Print": "printscreen",
    "Pause": "pause",
    "Menu": "apps",
    "KP_Add": "add",
    "KP_Subtract": "subtract",
    "KP_Multiply": "multiply",
    "KP_Divide": "divide",
    "KP_Decimal": "decimal",
    "plus": "+",
    "minus": "-",
    "equal": "=",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "bracketleft": "[",
    "bracketright": "]",
    "grave": "`",
    "exclam": "!",
    "at": "@",
    "numbersign": "#",
    "dollar": "$",
    "percent": "%",
    "asciicircum": "^",
    "ampersand": "&",
    "asterisk": "*",
    "parenleft": "(",
    "parenright": ")",
    "underscore": "_",
    "braceleft": "{",
    "braceright": "}",
    "bar": "|",
    "colon": ":",
    "quotedbl": '"',
    "less": "<",
    "greater": ">",
    "question": "?",
    "asciitilde": "~",
}
X_TO_PYAUTOGUI.update({f"KP_{d}": f"num{d}" for d in range(10)})
#: where pyautogui lacks a key of its own (Windows: keypad Enter), the nearest one it has
FALLBACK = {"kp_enter": "enter"}
X_TO_PYAUTOGUI.update({f"F{n}": f"f{n}" for n in range(1, 25)})


def to_pyautogui(name: str, known: frozenset[str] | set[str] | None = None) -> str:
    """One key of the port's vocabulary ('Return', 'ctrl', 'KP_5', 'a', 'A', 'F1') as pyautogui
    names it; `known` (pyautogui.KEYBOARD_KEYS) rejects names pyautogui would silently ignore."""
    if len(name) == 1 and name not in _ALIASES:
        key = name
    else:
        x = _ALIASES.get(name, _ALIASES.get(name.lower(), name))
        key = X_TO_PYAUTOGUI.get(x) or X_TO_PYAUTOGUI.get(x.capitalize()) or x.lower()
    if len(name) == 1 and name in _ALIASES:
        key = X_TO_PYAUTOGUI.get(_ALIASES[name], name)
    if known is not None and key not in known:
        key = FALLBACK.get(key, key)
    if known is not None and key not in known:
        raise SimbridgeError(f"unknown key name {name!r} (no such key in the guest's keyboard)")
    return key


def combo_keys(combo: str, known: frozenset[str] | set[str] | None = None) -> list[str]:
    """'ctrl+shift+a' -> ['ctrlleft', 'shiftleft', 'a'], in press order. An empty combination or
    an empty key name in one ('ctrl+', 'a++b', '+a') is refused, not pressed as something else;
    '+' alone, or a trailing '++' ('ctrl++'), is the plus key."""
    if len(combo) == 1 and combo in _ALIASES:  # ' ', '\n', '\t': a key of their own
        return [to_pyautogui(combo, known)]
    text = combo.strip()
    if not text:
        raise SimbridgeError("empty key name (give a key such as 'Return' or 'ctrl+a')")
    body = text[:-2] if text.endswith("++") and text != "++" else text
    if text != "+" and ("" in body.split("+")):
        raise SimbridgeError(f"empty key name in {combo[:80]!r} (keys are joined by single '+')")
    return [to_pyautogui(part, known) for part in split_combo(text)]
