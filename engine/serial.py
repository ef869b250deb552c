"""JSON round-trips for the engine's frozen dataclasses, and the one tagged codec of every game's actions.

States and actions are frozen dataclasses built from ints, strs, bools, enums, tuples, frozensets,
dicts and other such dataclasses. :func:`to_jsonable` turns one into plain JSON data and
:func:`from_jsonable` rebuilds it from the type hints, so each game does not hand-write its codec.
Frozensets are written sorted so that the JSON text of a state is canonical.

Actions are a union of dataclasses, each with a class-level ``kind`` (``kind: ClassVar[str] = "take"``, the
word its text starts with). :func:`action_codec` gives the union's :class:`ActionCodec`, which writes
``{"kind": "take", ...fields}`` and reads that back; it also reads what the event log stored before there was
one codec: Pyramido's ``{"take": {...fields}}`` and the untagged fields of Paša's and Dice Treasure's actions
(the first kind whose fields fit, as the union was read then).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from engine.errors import InvalidActionError, InvalidStateError

T = TypeVar("T")
A = TypeVar("A")


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


class ActionCodec(Generic[A]):
    """JSON of one game's actions, tagged by kind: ``{"kind": KIND, ...the action's fields}``."""

    def __init__(self, kinds: Mapping[str, type]) -> None:
        self.kinds: dict[str, type] = dict(kinds)
        self.kind_of: dict[type, str] = {cls: kind for kind, cls in self.kinds.items()}
        if len(self.kind_of) != len(self.kinds):
            raise TypeError(f"one action class under two kinds: {sorted(self.kinds)}")

    def to_jsonable(self, action: A) -> dict[str, Any]:
        try:
            kind = self.kind_of[type(action)]
        except KeyError:
            raise TypeError(f"{type(action).__name__} is not one of the kinds {sorted(self.kinds)}") from None
        data = to_jsonable(action)
        if "kind" in data:
            raise TypeError(f"{type(action).__name__} has a field named 'kind', which the tag uses")
        return {"kind": kind, **data}

    def dumps(self, action: A) -> str:
        return json.dumps(self.to_jsonable(action), separators=(",", ":"), sort_keys=True, ensure_ascii=False)

    def from_jsonable(self, data: Any) -> A:
        """The action in ``data``; InvalidActionError naming what is wrong."""
        if not isinstance(data, dict):
            raise InvalidActionError(f"action JSON {data!r} is not an object")
        try:
            if "kind" in data:
                kind = data["kind"]
                if kind not in self.kinds:
                    raise InvalidActionError(f"action kind {kind!r} is not one of {', '.join(self.kinds)}")
                body = {k: v for k, v in data.items() if k != "kind"}
                result: A = from_jsonable(self.kinds[kind], body, f"$[{kind}]")
                return result
        except InvalidStateError as exc:
            raise InvalidActionError(f"action JSON: {exc}") from None
        for kind, cls in self.kinds.items():  # untagged fields: Paša's and Dice Treasure's log before the codec
            try:
                result = from_jsonable(cls, data, f"$[{kind}?]")
                return result
            except InvalidStateError:
                continue
        if len(data) == 1 and next(iter(data)) in self.kinds and isinstance(next(iter(data.values())), dict):
            kind, body = next(iter(data.items()))  # {"take": {...}}: Pyramido's log before the one codec
            try:
                result = from_jsonable(self.kinds[kind], body, f"$.{kind}")
                return result
            except InvalidStateError as exc:
                raise InvalidActionError(f"action JSON: {exc}") from None
        raise InvalidActionError(f"action JSON {json.dumps(data)[:200]} has no 'kind' and fits no action")

    def loads(self, text: str) -> A:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidActionError(
                f"action JSON is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            ) from None
        return self.from_jsonable(data)


def union_members(tp: Any) -> tuple[type, ...]:
    """The classes of a union type (``Take | Place``), or the one class."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return tuple(typing.get_args(tp))
    return (tp,)


@functools.cache
def action_codec(action_type: Any) -> ActionCodec[Any]:
    """The codec of a union of action classes, each tagged by its class-level ``kind``."""
    kinds: dict[str, type] = {}
    for cls in union_members(action_type):
        kind = getattr(cls, "kind", None)
        if not isinstance(kind, str):
            raise TypeError(f"action class {cls.__name__} has no class-level kind: ClassVar[str]")
        if kind in kinds:
            raise TypeError(f"action kind {kind!r} is used by {kinds[kind].__name__} and {cls.__name__}")
        kinds[kind] = cls
    return ActionCodec(kinds)
