"""The paths of a request body's members, as a server names them in a refusal.

A server that refuses a request names the member it refused by its path in the body:
``url``, ``fiatDetails.paymentProviderId``, ``whitelistingInfo.list.wallets[1]``. These
functions tell which paths a body can hold, from its type (:func:`wire_paths`) and from
the function that builds it (:func:`argument_paths`), so that a form knows which of its
fields each path means without a list of its own that could fall out of step.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import msgspec
from msgspec import inspect

__all__ = ["argument_paths", "wire_paths", "with_objects", "without_positions"]

_POSITION = re.compile(r"\[\d+\]|\.\d+(?=\.|\[|$)|^\d+(?:\.|$)")


def without_positions(path: str) -> str:
    """``path`` without the positions of array elements: ``whitelistingInfo.list.wallets[1]``
    is ``whitelistingInfo.list.wallets``, ``events.0`` is ``events``."""
    return _POSITION.sub("", path).lstrip(".")


def wire_paths(*kinds: Any) -> list[str]:
    """Every path a body of one of ``kinds`` (msgspec structs, or lists of them) can hold,
    in the wire's names: each member and, for an object, each of its members
    (``fiatDetails``, ``fiatDetails.provider`` …). An array's elements have its path."""
    infos = inspect.multi_type_info(kinds)
    return list(dict.fromkeys(path for info in infos for path in _paths(info, "")))


def _paths(info: inspect.Type, prefix: str) -> Iterator[str]:
    if isinstance(info, inspect.ListType | inspect.VarTupleType | inspect.SetType):
        yield from _paths(info.item_type, prefix)
    elif isinstance(info, inspect.UnionType):
        for member in info.types:
            yield from _paths(member, prefix)
    elif isinstance(info, inspect.StructType):
        for field in info.fields:
            path = f"{prefix}.{field.encode_name}" if prefix else field.encode_name
            yield path
            yield from _paths(field.type, path)


def argument_paths(build: Callable[..., Any], sample: Mapping[str, Any]) -> dict[str, str]:
    """Where each argument of ``build`` lands in the body it builds, as a wire path: found
    by building the body from ``sample`` and again with one argument changed at a time
    (text, a switch, a list). Raises ``ValueError`` for an argument that lands on no
    member, or on more than one: no field's path could be told then."""
    before = _members(msgspec.to_builtins(build(**sample)))
    found: dict[str, str] = {}
    for name, value in sample.items():
        after = _members(msgspec.to_builtins(build(**{**sample, name: _changed(value)})))
        moved = sorted(
            path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
        )
        if len(moved) != 1:
            raise ValueError(f"{name} is built into {moved or 'no member'}, not one member")
        found[name] = moved[0]
    return found


def _members(value: Any, prefix: str = "") -> dict[str, Any]:
    """The members of a decoded body by path; a list is one member."""
    if not isinstance(value, dict):
        return {prefix: value}
    members: dict[str, Any] = {}
    for key, inner in value.items():
        members |= _members(inner, f"{prefix}.{key}" if prefix else key)
    return members


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, list):
        return [*value, "~"]
    raise TypeError(f"no changed value for a {type(value).__name__}")


def with_objects(fields: Mapping[str, str]) -> dict[str, str]:
    """``fields`` (a path to what it is read from), and each object holding one of them
    (``whitelistingInfo`` of ``whitelistingInfo.list.wallets``) read from the first one
    inside it: a server may refuse an object as a whole ("field required")."""
    found: dict[str, str] = {}
    for path, source in fields.items():
        while path and path not in found:
            found[path] = source
            path = path.rpartition(".")[0]
    return found
