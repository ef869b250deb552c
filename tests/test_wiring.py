"""The wiring diagram (docs/images/wiring.svg): drawn by tools/wiring.py, with the configuration's default pins."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from device.config import DEFAULTS_FILE, PanelConfig

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "docs" / "images" / "wiring.svg"
NS = {"svg": "http://www.w3.org/2000/svg"}

# Written out here rather than taken from the script: Broadcom GPIO -> header pin (Raspberry Pi pinout).
PHYSICAL = {17: 11, 27: 13, 22: 15, 23: 16, 24: 18}
GROUND = {6, 9, 14, 20, 25, 30, 34, 39}


@pytest.fixture(scope="module")
def wiring() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wiring", ROOT / "tools" / "wiring.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["wiring"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def drawn_parts(svg_text: str) -> dict[str, dict[str, str]]:
    root = ET.fromstring(svg_text)
    return {g.get("data-signal", ""): dict(g.attrib) for g in root.iter(f"{{{NS['svg']}}}g") if g.get("data-signal")}


def test_the_committed_drawing_is_the_scripts_output(wiring: ModuleType) -> None:
    assert SVG.read_text(encoding="utf-8") == wiring.diagram().as_svg() + "\n", (
        "docs/images/wiring.svg is out of date: run `make wiring`")


def test_the_drawing_shows_the_default_pins() -> None:
    defaults = PanelConfig()
    documented = tomllib.loads(DEFAULTS_FILE.read_text(encoding="utf-8"))["panel"]
    want = {"CONFIRM": defaults.confirm_pin, "UNDO": defaults.undo_pin, "NEXT": defaults.next_pin,
            "READY": defaults.ready_led_pin, "ATTENTION": defaults.attention_led_pin}
    assert want == {"CONFIRM": documented["confirm_pin"], "UNDO": documented["undo_pin"],
                    "NEXT": documented["next_pin"], "READY": documented["ready_led_pin"],
                    "ATTENTION": documented["attention_led_pin"]}, "companion.toml and config.py disagree"
    parts = drawn_parts(SVG.read_text(encoding="utf-8"))
    assert set(parts) == {*want, "GND"}
    for signal, gpio in want.items():
        assert int(parts[signal]["data-gpio"]) == gpio, signal
        assert int(parts[signal]["data-pin"]) == PHYSICAL[gpio], signal
    assert {parts[s]["data-kind"] for s in ("CONFIRM", "UNDO", "NEXT")} == {"button"}
    assert {parts[s]["data-kind"] for s in ("READY", "ATTENTION")} == {"led"}
    assert int(parts["GND"]["data-pin"]) in GROUND
    text = SVG.read_text(encoding="utf-8")
    for gpio, pin in PHYSICAL.items():
        assert f"GPIO{gpio} (pin {pin})" in text


def test_other_pins_are_drawn_where_they_are(wiring: ModuleType) -> None:
    config = PanelConfig(confirm_pin=5, undo_pin=6, next_pin=13, ready_led_pin=19, attention_led_pin=26)
    parts = drawn_parts(wiring.diagram(config).as_svg())
    assert {s: (int(p["data-gpio"]), int(p["data-pin"])) for s, p in parts.items() if s != "GND"} == {
        "CONFIRM": (5, 29), "UNDO": (6, 31), "NEXT": (13, 33), "READY": (19, 35), "ATTENTION": (26, 37)}


def test_the_header_table_is_the_raspberry_pi_pinout(wiring: ModuleType) -> None:
    table = wiring.HEADER_PIN
    assert len(table) == 28 and sorted(table) == list(range(28))
    assert len(set(table.values())) == 28
    assert not set(table.values()) & (GROUND | {1, 2, 4, 17})
    assert {gpio: table[gpio] for gpio in PHYSICAL} == PHYSICAL
