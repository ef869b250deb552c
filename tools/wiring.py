"""The panel's wiring diagram (docs/images/wiring.svg), drawn from the default pins in ``device/config.py``.

    .venv/bin/python tools/wiring.py [--out docs/images/wiring.svg]      (or: make wiring)
    .venv/bin/python tools/wiring.py --config my.toml --out my-wiring.svg  (your own [panel] pins)

Three push buttons from a GPIO pin to ground (the Pi's internal pull-ups, no resistor), two LEDs from a GPIO pin
through a series resistor to ground, and a map of the 40-pin header with the pins used. Pins are gpiozero's
(Broadcom) numbers; the header positions come from the table below. ``tests/test_wiring.py`` checks that the
committed drawing is this script's output and that its pins are the configuration's defaults.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import drawsvg as dw

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from device.config import PanelConfig, load_config  # noqa: E402  (after the path: the script runs from anywhere)

OUT = ROOT / "docs" / "images" / "wiring.svg"

#: Broadcom GPIO number -> physical pin of the 40-pin header (every Raspberry Pi since the B+).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31, 13: 33, 19: 35, 26: 37,
    14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
POWER_PINS = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
#: Series resistor for each LED: 330 ohm gives 3-4 mA from a 3.3 V pin with a red, yellow or ordinary green LED.
LED_RESISTOR = "330 Ω"


@dataclass(frozen=True)
class Part:
    signal: str  # the name on the panel: CONFIRM, UNDO, NEXT, READY, ATTENTION
    kind: str  # "button" or "led"
    gpio: int
    note: str

    @property
    def pin(self) -> int:
        return HEADER_PIN[self.gpio]


def parts(config: PanelConfig) -> list[Part]:
    """The panel's parts with the configuration's pins, in the order they are drawn."""
    return [
        Part("CONFIRM", "button", config.confirm_pin, "press: confirm; hold ≥ 1 s: end the turn"),
        Part("UNDO", "button", config.undo_pin, "undo the last action"),
        Part("NEXT", "button", config.next_pin, "next choice"),
        Part("READY", "led", config.ready_led_pin, "green: steady = tracking, blinking = waiting"),
        Part("ATTENTION", "led", config.attention_led_pin, "red: look at the page"),
    ]


INK = "#222"
WIRE = "#1f5fa8"
GROUND = "#333"
FONT = "DejaVu Sans, Arial, sans-serif"


def _text(d: dw.Drawing, text: str, x: float, y: float, size: float = 13, **kw: object) -> None:
    d.append(dw.Text(text, size, x, y, font_family=FONT, fill=INK, **kw))


def _button(d: dw.Drawing, x: float, y: float) -> None:
    """A push button between (x, y) and (x + 60, y): two contacts and a bar above them."""
    d.append(dw.Line(x, y, x + 18, y, stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 42, y, x + 60, y, stroke=INK, stroke_width=2))
    d.append(dw.Circle(x + 18, y, 3, fill="white", stroke=INK, stroke_width=2))
    d.append(dw.Circle(x + 42, y, 3, fill="white", stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 14, y - 10, x + 46, y - 10, stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 30, y - 10, x + 30, y - 20, stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 24, y - 20, x + 36, y - 20, stroke=INK, stroke_width=2))


def _resistor(d: dw.Drawing, x: float, y: float) -> None:
    """A resistor (IEC box) between (x, y) and (x + 60, y)."""
    d.append(dw.Line(x, y, x + 12, y, stroke=INK, stroke_width=2))
    d.append(dw.Rectangle(x + 12, y - 7, 36, 14, fill="white", stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 48, y, x + 60, y, stroke=INK, stroke_width=2))


def _led(d: dw.Drawing, x: float, y: float, colour: str) -> None:
    """An LED between (x, y) (anode, long leg) and (x + 50, y) (cathode, short leg)."""
    d.append(dw.Line(x, y, x + 15, y, stroke=INK, stroke_width=2))
    d.append(dw.Lines(x + 15, y - 10, x + 15, y + 10, x + 33, y, close=True, fill=colour, stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 33, y - 10, x + 33, y + 10, stroke=INK, stroke_width=2))
    d.append(dw.Line(x + 33, y, x + 50, y, stroke=INK, stroke_width=2))
    for dx in (0, 7):
        d.append(dw.Line(x + 24 + dx, y - 12, x + 31 + dx, y - 20, stroke=INK, stroke_width=1.5))


def _header_map(d: dw.Drawing, x: float, y: float, used: dict[int, str]) -> None:
    """The 40-pin header as seen from above, pin 1 at the top left, the used pins marked."""
    step = 15
    d.append(dw.Rectangle(x - 12, y - 12, 2 * step + 24, 20 * step + 10, rx=4, fill="#f4f4f4", stroke=INK))
    for n in range(1, 41):
        col, row = (n - 1) % 2, (n - 1) // 2
        cx, cy = x + col * 2 * step, y + row * step
        fill = (GROUND if used[n] == "GND" else WIRE) if n in used else "white"
        d.append(dw.Circle(cx, cy, 5, fill=fill, stroke=INK, stroke_width=1, data_pin=n))
        label = used.get(n) or POWER_PINS.get(n) or ("GND" if n in GROUND_PINS else "")
        if label:
            lx = cx - 10 if col == 0 else cx + 10
            anchor = "end" if col == 0 else "start"
            _text(d, f"{n} {label}" if col else f"{label} {n}", lx, cy + 4, 10, text_anchor=anchor)
    _text(d, "40-pin header, from above", x + step, y + 20 * step + 16, 11, text_anchor="middle")
    _text(d, "(pin 1 nearest the SD card end)", x + step, y + 20 * step + 30, 11, text_anchor="middle")


def diagram(config: PanelConfig | None = None) -> dw.Drawing:
    """The whole drawing for ``config`` (default: the configuration's defaults)."""
    config = config or PanelConfig()
    items = parts(config)
    ground_pin = 14  # a GND pin is never a GPIO, so this one is always free
    width, height = 1000, 470
    d = dw.Drawing(width, height, font_family=FONT)
    d.append(dw.Rectangle(0, 0, width, height, fill="white"))
    _text(d, "Table Companion panel: 3 buttons, 2 LEDs", 20, 30, 18, font_weight="bold")
    _text(d, "GPIO numbers as in [panel] of companion.toml (defaults shown); buttons need no resistor "
             "(internal pull-ups).", 20, 50, 12)

    # The Pi's terminals: a box with one terminal per part and one ground.
    box_x, box_y, row = 20, 80, 60
    d.append(dw.Rectangle(box_x, box_y, 150, row * len(items) + 40, rx=6, fill="#e8f0e0", stroke=INK, stroke_width=2))
    _text(d, "Raspberry Pi", box_x + 10, box_y + 20, 14, font_weight="bold")
    bus_x = 500
    term_x = box_x + 150
    for i, part in enumerate(items):
        y = box_y + 50 + i * row
        g = dw.Group(data_signal=part.signal, data_gpio=part.gpio, data_pin=part.pin, data_kind=part.kind)
        g.append(dw.Circle(term_x, y, 4, fill=WIRE))
        g.append(dw.Text(f"GPIO{part.gpio} (pin {part.pin})", 12, term_x - 8, y + 4, font_family=FONT,
                         fill=INK, text_anchor="end"))
        g.append(dw.Line(term_x, y, 240, y, stroke=WIRE, stroke_width=2))
        d.append(g)
        if part.kind == "button":
            _button(d, 240, y)
            d.append(dw.Line(300, y, bus_x, y, stroke=GROUND, stroke_width=2))
        else:
            _resistor(d, 240, y)
            _text(d, LED_RESISTOR, 270, y - 12, 12, text_anchor="middle")
            d.append(dw.Line(300, y, 340, y, stroke=INK, stroke_width=2))
            _led(d, 340, y, "#3c3" if part.signal == "READY" else "#e33")
            d.append(dw.Line(390, y, bus_x, y, stroke=GROUND, stroke_width=2))
        d.append(dw.Circle(bus_x, y, 3, fill=GROUND))
        _text(d, part.signal, 520, y - 4, 13, font_weight="bold")
        _text(d, part.note, 520, y + 12, 11)
    last = box_y + 50 + (len(items) - 1) * row
    gnd_y = last + 45
    d.append(dw.Line(bus_x, box_y + 50, bus_x, gnd_y, stroke=GROUND, stroke_width=3))
    g = dw.Group(data_signal="GND", data_pin=ground_pin, data_kind="ground")
    g.append(dw.Line(box_x + 150, gnd_y, bus_x, gnd_y, stroke=GROUND, stroke_width=3))
    g.append(dw.Circle(term_x, gnd_y, 4, fill=GROUND))
    g.append(dw.Text(f"GND (pin {ground_pin})", 12, term_x - 8, gnd_y + 4, font_family=FONT, fill=INK,
                     text_anchor="end"))
    d.append(g)
    _text(d, f"ground: any GND pin ({', '.join(map(str, GROUND_PINS))})", 220, gnd_y + 20, 11)
    _text(d, "LED: long leg (anode) towards the resistor and the GPIO pin, short leg to ground", 20, height - 14, 11)

    used = {p.pin: f"GPIO{p.gpio}" for p in items}
    used[ground_pin] = "GND"
    _header_map(d, 860, 80, used)
    return d


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the SVG (default docs/images/wiring.svg)")
    parser.add_argument("--config", type=Path, help="draw the [panel] pins of this companion.toml (default: defaults)")
    args = parser.parse_args(argv)
    panel = load_config(args.config, search=False).panel if args.config else PanelConfig()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(diagram(panel).as_svg() + "\n", encoding="utf-8")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
