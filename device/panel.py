"""The GPIO panel: three buttons (CONFIRM, UNDO, NEXT) and two LEDs (READY, ATTENTION), through gpiozero.

The pin factory is gpiozero's own choice (``GPIOZERO_PIN_FACTORY`` or its defaults) in ``gpio`` mode, and
gpiozero's ``MockFactory`` only in ``mock`` mode: a mock factory in ``gpio`` mode is an error, never a
silent stand-in. Buttons are debounced here, in the app, because the mock factory does not debounce
and because the long press is measured from the same edges: CONFIRM held for ``long_press_s`` or
longer is a *long* press (confirm the end of a turn or game). LEDs follow the session's snapshot:
READY steady while tracking a still table, blinking while waiting for it to be still; ATTENTION on
when the players are needed.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from device.config import PanelConfig
from device.errors import PanelError

log = logging.getLogger(__name__)

BUTTONS = ("confirm", "undo", "next")


class Panel:
    """Buttons and LEDs on one pin factory. A context manager; :meth:`close` is idempotent."""

    def __init__(self, config: PanelConfig, on_press: Callable[[str, bool], None], *,
                 pin_factory: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        if config.mode not in ("gpio", "mock"):
            raise PanelError(f"panel mode {config.mode!r} has no pins")
        try:
            from gpiozero import LED, Button, Device
            from gpiozero.pins.mock import MockFactory
        except ImportError as exc:  # pragma: no cover - gpiozero is a dependency
            raise PanelError(f"the panel needs gpiozero: {exc}") from None
        self.config = config
        self.mode = config.mode
        self.on_press = on_press
        self.clock = clock
        if pin_factory is None:
            if config.mode == "mock":
                pin_factory = MockFactory()
            else:
                try:
                    with warnings.catch_warnings():  # its fall-back chatter; the outcome is reported below
                        warnings.simplefilter("ignore")
                        pin_factory = Device._default_pin_factory()
                except Exception as exc:
                    raise PanelError(
                        f"no GPIO pin factory ({exc}); on a PC set [panel] mode = \"mock\" or \"none\""
                    ) from None
        if config.mode == "gpio" and isinstance(pin_factory, MockFactory):
            raise PanelError('the pin factory is gpiozero\'s mock but [panel] mode is "gpio"; set mode = "mock"')
        self.factory = pin_factory
        self._lock = threading.Lock()
        self._last_edge: dict[str, float] = {}
        self._down_since: dict[str, float] = {}
        self._leds: dict[str, str] = {}
        self._closed = False
        pins = {"confirm": config.confirm_pin, "undo": config.undo_pin, "next": config.next_pin}
        try:
            self.buttons = {name: Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                            for name, pin in pins.items()}
            self.ready_led = LED(config.ready_led_pin, pin_factory=pin_factory)
            self.attention_led = LED(config.attention_led_pin, pin_factory=pin_factory)
        except Exception as exc:
            self.close()
            raise PanelError(f"cannot set up the panel pins: {exc}") from None
        for name, button in self.buttons.items():
            button.when_pressed = lambda _dev=None, n=name: self._edge(n, True)
            button.when_released = lambda _dev=None, n=name: self._edge(n, False)

    def _edge(self, name: str, down: bool) -> None:
        now = self.clock()
        with self._lock:
            last = self._last_edge.get(name)
            if last is not None and now - last < self.config.debounce_s:
                return  # contact bounce
            self._last_edge[name] = now
            if down:
                self._down_since[name] = now
                return
            since = self._down_since.pop(name, None)
        if since is None:
            return
        long = now - since >= self.config.long_press_s
        try:
            self.on_press(name, long)
        except Exception as exc:  # a refused press is reported by the session; never kill the GPIO thread
            log.warning("button %s: %s", name, exc)

    def show(self, leds: dict[str, str]) -> None:
        """Set the LEDs to ``{"ready": on|off|blink, "attention": on|off|blink}`` (changes only)."""
        if self._closed:
            return
        for name, led in (("ready", self.ready_led), ("attention", self.attention_led)):
            want = leds.get(name, "off")
            if self._leds.get(name) == want:
                continue
            self._leds[name] = want
            if want == "on":
                led.on()
            elif want == "blink":
                led.blink(on_time=0.4, off_time=0.4)
            else:
                led.off()

    def led_state(self) -> dict[str, str]:
        return dict(self._leds)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for dev in [*getattr(self, "buttons", {}).values(), getattr(self, "ready_led", None),
                    getattr(self, "attention_led", None)]:
            if dev is not None:
                dev.close()

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
