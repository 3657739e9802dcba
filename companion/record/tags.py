"""The record's tags and the game's options: one written from the other, in one place.

NOTATION.md: ``Cults`` and ``Target`` always; ``StartRule``, ``Doublers`` and ``IllegalCall``
only when they differ from the rulebook's; ``Sets`` follows from the cults and is read when
present. python-chess turns its headers into a board the same way (``Headers.board()``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..rules.options import Options, OptionsError, default_target


def tags_for(options: Options, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The tags that carry ``options``, then the free ones of ``extra`` (never overriding them)."""
    tags = {"Cults": " ".join(options.cults), "Target": str(options.target)}
    if options.start_rule.value != "sum":
        tags["StartRule"] = options.start_rule.value
    if options.doublers.value != "return":
        tags["Doublers"] = options.doublers.value
    if options.illegal_call.value != "recall":
        tags["IllegalCall"] = options.illegal_call.value
    for k, v in (extra or {}).items():
        tags.setdefault(k, v)
    return tags


def options_from_tags(tags: Mapping[str, str]) -> Options:
    """The options the tags carry; ``OptionsError`` (with its rule id) when they are not valid."""
    cults = tags.get("Cults", "").split()
    try:
        target = int(tags["Target"]) if "Target" in tags else default_target(len(cults))
        sets = int(tags["Sets"]) if "Sets" in tags else None
        return Options.make(
            cults,
            target=target,
            sets=sets,
            start_rule=tags.get("StartRule", "sum"),
            doublers=tags.get("Doublers", "return"),
            illegal_call=tags.get("IllegalCall", "recall"),
        )
    except OptionsError:
        raise
    except ValueError as exc:  # a number or an option word that is not one
        raise OptionsError("N", str(exc)) from None
