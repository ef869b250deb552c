"""The appliance's configuration: a TOML file over documented defaults (``device/companion.toml``).

The defaults file is the documentation: every key is there with its default and a comment. A user file
overrides keys section by section; an unknown section or key, or a value of the wrong type, is a
:class:`device.errors.ConfigError` naming the file and the key, never silently ignored.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device.errors import ConfigError

DEFAULTS_FILE = Path(__file__).with_name("companion.toml")


def search_paths() -> list[Path]:
    """Where ``companion run`` looks for a config file when ``--config`` is not given, in order."""
    paths = []
    env = os.environ.get("COMPANION_CONFIG")
    if env:
        paths.append(Path(env))
    paths.append(Path("/etc/companion/companion.toml"))
    paths.append(Path("~/.config/companion/companion.toml").expanduser())
    return paths


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"
    width: int = 1280
    height: int = 960
    warmup_s: float = 2.0
    lost_after_s: float = 1.5
    reconnect_min_s: float = 0.5
    reconnect_max_s: float = 8.0
    #: A camera read() that has not returned for this long is stuck: its thread is replaced.
    stuck_after_s: float = 5.0
    #: Frames (recorded files, or pictures from a driver) larger than this are refused before decoding.
    max_frame_pixels: int = 4096 * 3072
    max_frame_bytes: int = 16 * 1024 * 1024
    #: Scale of the rectified zone images the readers get (vision/registration.py); 0: width / 800 mm.
    zone_px_per_mm: float = 0.0


@dataclass(frozen=True)
class StabilityConfig:
    motion_threshold: float = 2.0
    motion_delta: int = 18
    agree_frames: int = 3
    #: Motion must be seen in this many consecutive frames to count (one noise frame is not a roll).
    motion_frames: int = 2
    #: Share of the 80x60 cells that must move for the table to count as covered (a hand over the tray).
    cover_share: float = 0.15


@dataclass(frozen=True)
class PanelConfig:
    mode: str = "gpio"
    confirm_pin: int = 17
    undo_pin: int = 27
    next_pin: int = 22
    ready_led_pin: int = 23
    attention_led_pin: int = 24
    debounce_s: float = 0.05
    long_press_s: float = 1.0


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    threads: int = 16
    pairing_timeout_s: float = 30.0
    #: Names besides the device's hostname, hostname.local, localhost and IP addresses that the page answers
    #: to (a name given to the device on the router); requests for any other Host are refused.
    allowed_hosts: tuple[str, ...] = ()
    #: With the mock panel, the page (and its virtual panel) is served on the loopback address only,
    #: unless this is true.
    mock_panel_on_network: bool = False
    #: Open connections at most (idle ones beyond it are closed oldest first), and how long one may idle.
    connection_limit: int = 64
    idle_timeout_s: float = 20.0


@dataclass(frozen=True)
class GameConfig:
    name: str = "pasa"
    players: tuple[str, ...] = ("Anna", "Ben")
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StorageConfig:
    state_dir: str = "~/.local/state/companion"

    def path(self) -> Path:
        env = os.environ.get("STATE_DIRECTORY")  # set by systemd's StateDirectory=
        return Path(env.split(":")[0]) if env else Path(self.state_dir).expanduser()


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    stability: StabilityConfig = field(default_factory=StabilityConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    web: WebConfig = field(default_factory=WebConfig)
    game: GameConfig = field(default_factory=GameConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    #: The file the values came from (None: defaults only).
    source_file: str | None = None

    def replace(self, **sections: Any) -> Config:
        """A copy with some keys changed: ``cfg.replace(camera={"source": "opencv:0"})``."""
        return _merge(self, sections, "override")


PANEL_MODES = ("gpio", "mock", "none")


def _coerce(value: Any, default: Any, where: str) -> Any:
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, tuple):
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif isinstance(default, Mapping):
        ok = isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values())
        value = dict(value) if ok else value
    else:  # pragma: no cover - every field has one of the types above
        ok = False
    if not ok:
        raise ConfigError(f"{where}: {value!r} is not a {type(default).__name__}")
    return value


def _merge(base: Config, data: Mapping[str, Any], origin: str) -> Config:
    sections: dict[str, Any] = {}
    for name, values in data.items():
        if name not in {f.name for f in dataclasses.fields(Config)} or name == "source_file":
            raise ConfigError(f"{origin}: unknown section [{name}]")
        if not isinstance(values, Mapping):
            raise ConfigError(f"{origin}: [{name}] must be a table")
        current = getattr(base, name)
        known = {f.name for f in dataclasses.fields(current)}
        changes = {}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(f"{origin}: unknown key {key!r} in [{name}]; known: {', '.join(sorted(known))}")
            changes[key] = _coerce(value, getattr(current, key), f"{origin}: [{name}] {key}")
        sections[name] = dataclasses.replace(current, **changes)
    config = dataclasses.replace(base, **sections)
    if config.panel.mode not in PANEL_MODES:
        raise ConfigError(f"{origin}: [panel] mode {config.panel.mode!r} is not one of {', '.join(PANEL_MODES)}")
    if config.stability.agree_frames < 1:
        raise ConfigError(f"{origin}: [stability] agree_frames must be at least 1")
    if config.stability.motion_frames < 1:
        raise ConfigError(f"{origin}: [stability] motion_frames must be at least 1")
    if config.camera.max_frame_pixels < 1 or config.camera.max_frame_bytes < 1:
        raise ConfigError(f"{origin}: [camera] max_frame_pixels and max_frame_bytes must be positive")
    if not 0 < config.web.port < 65536:
        raise ConfigError(f"{origin}: [web] port {config.web.port} is out of range")
    return config


def web_host(config: Config, asked: str | None = None) -> tuple[str, str | None]:
    """The address to serve the page on, and a warning to log (None: nothing to say).

    With the mock panel the virtual panel stands in for the buttons, so the page is served on the loopback
    address only unless ``[web] mock_panel_on_network`` (or an explicit ``--host``) says otherwise."""
    host = asked or config.web.host
    loopback = host in ("127.0.0.1", "::1", "localhost")
    if config.panel.mode != "mock" or loopback:
        return host, None
    if asked is None and not config.web.mock_panel_on_network:
        return "127.0.0.1", (f"the mock panel serves the page on 127.0.0.1 only, not {host}: its virtual panel "
                             "stands in for the buttons (set [web] mock_panel_on_network = true to serve it "
                             "on the network)")
    return host, (f"the mock panel's virtual panel is served on {host}: anyone who can reach the page can press "
                  "its buttons")


def load_config(path: str | Path | None = None, *, search: bool = True) -> Config:
    """The configuration from ``path``, else the first existing file of :func:`search_paths`, over defaults."""
    chosen: Path | None = Path(path) if path is not None else None
    if chosen is None and search:
        chosen = next((p for p in search_paths() if p.is_file()), None)
    config = Config()
    if chosen is None:
        return config
    try:
        data = tomllib.loads(chosen.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {str(chosen)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(chosen)!r} is not valid TOML: {exc}") from None
    return dataclasses.replace(_merge(config, data, str(chosen)), source_file=str(chosen))


def resolve_state_dir(given: str | Path | None, config_file: str | Path | None = None) -> Path:
    """The state directory a command works in: ``--state-dir`` when given, else ``[storage]`` of the
    configuration (``--config``, else the first file of :func:`search_paths`)."""
    return Path(given) if given else load_config(config_file).storage.path()
