"""What runs inside the sandbox or guest OS: the guest service (`simbridge guest`).

The agent port on the host reaches the guest's screen and input through it (mss captures,
pyautogui types and clicks), over one authenticated TCP connection per episode. See
docs/guest-service.md; the host side is `simbridge._agent_port._transport`.
"""

from simbridge.guest._protocol import SERVICE, VERSION, ProtocolError

__all__ = ["SERVICE", "VERSION", "ProtocolError"]
