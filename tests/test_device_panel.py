"""The GPIO panel on gpiozero's MockFactory: debouncing in the app, long press, LEDs, no silent mock."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from device.config import PanelConfig
from device.errors import PanelError
from device.panel import Panel


@pytest.fixture
def clock() -> list[float]:
    return [0.0]


@pytest.fixture
def panel(clock: list[float]) -> tuple[Panel, list[tuple[str, bool]]]:
    presses: list[tuple[str, bool]] = []
    p = Panel(PanelConfig(mode="mock"), lambda b, long: presses.append((b, long)), clock=lambda: clock[0])
    yield p, presses
    p.close()


def tap(panel: Panel, clock: list[float], name: str, hold: float = 0.1) -> None:
    pin = panel.buttons[name].pin
    pin.drive_low()
    clock[0] += hold
    pin.drive_high()
    clock[0] += 0.5


def test_short_and_long_presses(panel: tuple[Panel, list[tuple[str, bool]]], clock: list[float]) -> None:
    p, presses = panel
    tap(p, clock, "next")
    tap(p, clock, "confirm", hold=1.5)
    tap(p, clock, "undo")
    assert presses == [("next", False), ("confirm", True), ("undo", False)]


def test_bounces_are_ignored(panel: tuple[Panel, list[tuple[str, bool]]], clock: list[float]) -> None:
    p, presses = panel
    pin = p.buttons["confirm"].pin
    pin.drive_low()
    clock[0] += 0.01
    pin.drive_high()  # bounce: 10 ms after the press edge
    clock[0] += 0.01
    pin.drive_low()
    clock[0] += 0.2
    pin.drive_high()
    assert presses == [("confirm", False)]


def test_leds_follow_the_session(panel: tuple[Panel, list[tuple[str, bool]]]) -> None:
    p, _ = panel
    p.show({"ready": "on", "attention": "off"})
    assert p.ready_led.is_lit and not p.attention_led.is_lit
    p.show({"ready": "blink", "attention": "on"})
    assert p.attention_led.is_lit and p.led_state()["ready"] == "blink"
    p.show({"ready": "off", "attention": "off"})
    assert not p.ready_led.is_lit and not p.attention_led.is_lit


def test_mock_factory_is_never_used_silently() -> None:
    with pytest.raises(PanelError, match="mock"):
        Panel(PanelConfig(mode="gpio"), lambda b, long: None, pin_factory=MockFactory())


def test_close_is_idempotent() -> None:
    p = Panel(PanelConfig(mode="mock"), lambda b, long: None)
    p.close()
    p.close()


def test_mock_from_the_environment_is_refused_in_gpio_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    with pytest.raises(PanelError, match='mode = "mock"'):
        Panel(PanelConfig(mode="gpio"), lambda b, long: None)
