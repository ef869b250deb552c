"""JSON round-trips for the engine's frozen dataclasses.

States and actions are frozen dataclasses built from ints, strs, bools, enums, tuples, frozensets,
dicts and other such dataclasses. :func:`to_jsonable` turns one into plain JSON data and
:func:`from_jsonable` rebuilds it from the type hints, so each game does not hand-write its codec.
Frozensets are written sorted so that the JSON text of a state is canonical.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any, TypeVar

from engine.errors import InvalidStateError

T = TypeVar("T")


def to_jsonable(obj: object) -> Any:
    """Plain JSON data (dicts, lists, str, int, float, bool, None) for an engine value."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (frozenset, set)):
        items = [to_jsonable(x) for x in obj]
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(obj, (tuple, list)):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        # JSON keys must be strings; non-string keys are written as a list of pairs.
        if all(isinstance(k, str) for k in obj):
            return {k: to_jsonable(v) for k, v in obj.items()}
        return [[to_jsonable(k), to_jsonable(v)] for k, v in obj.items()]
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot serialise {type(obj).__name__}: {obj!r}")


def dumps(obj: object) -> str:
    """Canonical compact JSON text of an engine value."""
    return json.dumps(to_jsonable(obj), separators=(",", ":"), sort_keys=True, ensure_ascii=False)


@functools.cache
def _fields(tp: type) -> tuple[tuple[tuple[str, Any, bool], ...], frozenset[str]]:
    """A dataclass's init fields as (name, type hint, required), and their names; worked out once a type,
    since resolving the hints is most of the time of reading a state."""
    hints = typing.get_type_hints(tp)
    fields = tuple(
        (f.name, hints[f.name], f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        for f in dataclasses.fields(tp)
        if f.init
    )
    return fields, frozenset(name for name, _, _ in fields)


def from_jsonable(tp: Any, data: Any, where: str = "$") -> Any:
    """Rebuild a value of type ``tp`` from JSON data; raise InvalidStateError naming the bad path."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_jsonable(arg, data, where)
            except (InvalidStateError, TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise InvalidStateError(f"{where}: {data!r} matches none of {tp}: {'; '.join(errors)}")
    if origin is typing.Literal:
        if data not in args:
            raise InvalidStateError(f"{where}: {data!r} is not one of {list(args)}")
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise InvalidStateError(f"{where}: expected a list, got {data!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_jsonable(args[0], x, f"{where}[{i}]") for i, x in enumerate(data))
        if len(args) != len(data):
            raise InvalidStateError(f"{where}: expected {len(args)} items, got {len(data)}")
        return tuple(from_jsonable(a, x, f"{where}[{i}]") for i, (a, x) in enumerate(zip(args, data, strict=True)))
    if origin in (frozenset, set):
        if not isinstance(data, list):
            raise InvalidStateError(f"{where}: expected a list, got {data!r}")
        return frozenset(from_jsonable(args[0], x, f"{where}[{i}]") for i, x in enumerate(data))
    if origin is list:
        if not isinstance(data, list):
            raise InvalidStateError(f"{where}: expected a list, got {data!r}")
        return [from_jsonable(args[0], x, f"{where}[{i}]") for i, x in enumerate(data)]
    if origin is dict or (origin is not None and origin.__name__ == "Mapping"):
        kt, vt = args
        if isinstance(data, dict):
            return {from_jsonable(kt, k, where): from_jsonable(vt, v, f"{where}.{k}") for k, v in data.items()}
        if isinstance(data, list):
            return {from_jsonable(kt, k, where): from_jsonable(vt, v, f"{where}[{k!r}]") for k, v in data}
        raise InvalidStateError(f"{where}: expected an object, got {data!r}")
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise InvalidStateError(f"{where}: expected an object for {tp.__name__}, got {data!r}")
        fields, names = _fields(tp)
        kwargs = {}
        unknown = set(data) - names
        if unknown:
            raise InvalidStateError(f"{where}: unknown field(s) {sorted(unknown)} for {tp.__name__}")
        for name, hint, required in fields:
            if name in data:
                kwargs[name] = from_jsonable(hint, data[name], f"{where}.{name}")
            elif required:
                raise InvalidStateError(f"{where}: missing field {name!r} for {tp.__name__}")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as exc:
            raise InvalidStateError(f"{where}: {exc}") from exc
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise InvalidStateError(
                f"{where}: {data!r} is not a {tp.__name__} (one of {[m.value for m in tp]})"
            ) from None
    if tp is bool:
        if not isinstance(data, bool):
            raise InvalidStateError(f"{where}: expected true or false, got {data!r}")
        return data
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise InvalidStateError(f"{where}: expected an integer, got {data!r}")
        return data
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise InvalidStateError(f"{where}: expected a number, got {data!r}")
        return float(data)
    if tp is str:
        if not isinstance(data, str):
            raise InvalidStateError(f"{where}: expected a string, got {data!r}")
        return data
    if tp is type(None):
        if data is not None:
            raise InvalidStateError(f"{where}: expected null, got {data!r}")
        return None
    raise TypeError(f"{where}: cannot rebuild type {tp!r}")


def loads(tp: type[T], text: str) -> T:
    """Rebuild a ``tp`` from JSON text; bad JSON or a bad shape raise InvalidStateError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidStateError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    result: T = from_jsonable(tp, data)
    return result
