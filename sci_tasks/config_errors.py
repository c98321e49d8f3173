"""Config mistakes in one line, on every Hydra command (``sci-eval``, ``sci-score``).

Hydra reports what it cannot compose itself, before any of our code runs: an unknown key
("Could not override 'batch_size'. To append to your config use +batch_size=auto", advice
that, followed, adds a key nothing reads), a group option that does not exist (a search-path
dump), an override it cannot parse. Hydra has no hook for its own error text, but it
re-raises its exceptions when ``HYDRA_FULL_ERROR=1``; so the command sets the variable for
Hydra while it composes (marked as ours, so ``preflight.verbose`` still prints no
traceback), catches Hydra's exceptions and says each in one line:

* an unknown key names the closest valid keys, found in the config composed with the other
  overrides (``batch_size=auto`` -> ``model.batch_size``); under a mapping that is passed on
  as it is (``model.args``, ``model.gen_kwargs``, ``model.env``) Hydra's ``+key=value`` is
  the right advice and is given;
* a group option that does not exist lists the group's choices, the closest first;
* a value of the wrong type (``limit=abc``; the types are the schema's,
  ``sci_tasks.run_config``) is the option as given, OmegaConf's reason and the schema field;
* a key added with ``+`` outside those mappings (and the judge roles and ``hydra``, which
  refuse or use what they get) is refused before Hydra runs: nothing would read it.

``HYDRA_FULL_ERROR=1`` set by the user keeps Hydra's full trace, as Hydra documents;
``--verbose`` prints the trace before the line.
"""

from __future__ import annotations

import difflib
import os
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hydra.errors import (
    CompactHydraException,
    ConfigCompositionException,
    MissingConfigException,
    SearchPathException,
)
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, ValidationError

FULL_ERROR = "HYDRA_FULL_ERROR"
OURS = "SCI_TASKS_HYDRA_RAISES"  # HYDRA_FULL_ERROR=1 was set by us, not by the user
# mappings whose keys are passed on as they are (lm-eval model_args, gen_kwargs, the
# environment), or checked by their reader (judge settings refuse unknown keys), or Hydra's
PASSED_ON = ("model.args.", "model.gen_kwargs.", "model.env.")
ADDABLE = (*PASSED_ON, "judge.", "correctness_judge.", "judges.", "cascade.", "hydra.")
CONFIG_MODULE = "sci_tasks.conf"


def user_full_error() -> bool:
    """HYDRA_FULL_ERROR=1 set by the user (not by ``one_line_errors``)."""
    return os.environ.get(FULL_ERROR) == "1" and os.environ.get(OURS) != "1"


@contextmanager
def one_line_errors(prog: str, config_name: str, args: Sequence[str]) -> Iterator[None]:
    """Run a Hydra entry point (``args``: its command line) with Hydra's config errors as
    one line each (``SystemExit``); the user's ``HYDRA_FULL_ERROR=1`` keeps Hydra's trace."""
    if os.environ.get(FULL_ERROR) == "1":
        yield
        return
    refuse_unread_additions(prog, config_name, args)
    os.environ[FULL_ERROR] = os.environ[OURS] = "1"
    try:
        yield
    except (CompactHydraException, SearchPathException) as exc:
        if os.environ.get("SCI_EVAL_VERBOSE") == "1":
            traceback.print_exc()
        raise SystemExit(f"{prog}: {describe(exc, prog, config_name, args)}") from None
    finally:
        os.environ.pop(FULL_ERROR, None)
        os.environ.pop(OURS, None)


def overrides_of(args: Sequence[str]) -> list[str]:
    """The overrides of a Hydra command line (no flags, no flag values)."""
    from hydra._internal.utils import get_args_parser

    try:
        parsed, _ = get_args_parser().parse_known_args(list(args))
    except SystemExit:  # an argparse error: Hydra says it in its own words
        return []
    return [str(o) for o in parsed.overrides]


def refuse_unread_additions(prog: str, config_name: str, args: Sequence[str]) -> None:
    """``+key=value`` (or ``++``) for a key no part of the program reads: refused in one
    line naming the closest valid keys (Hydra would add it, and the run ignore it)."""
    for override in overrides_of(args):
        if not override.startswith("+") or "=" not in override:
            continue
        key = override.lstrip("+").split("=", 1)[0].strip()
        if key.startswith(ADDABLE):
            continue
        others = [o for o in overrides_of(args) if o != override]
        if key in valid_keys(config_name, others):  # it exists: Hydra sets it
            continue
        advice = _advice(prog, key, override.split("=", 1)[1], config_name, others)
        raise SystemExit(f"{prog}: {override} adds a key nothing reads{advice}")


def describe(exc: BaseException, prog: str, config_name: str, args: Sequence[str]) -> str:
    """Hydra's error as one line."""
    overrides = overrides_of(args)
    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and exc.options:
        group, _, name = str(exc.missing_cfg_file).rpartition("/")
        options = sorted(str(o) for o in exc.options)
        closest = difflib.get_close_matches(name, options, n=1, cutoff=0.5)
        hint = f" (did you mean {group}={closest[0]}?)" if closest else ""
        return f"{group}={name}: no such {group} config{hint}; choices: {', '.join(options)}"
    cause = exc.__cause__
    key = str(getattr(cause, "full_key", "") or "")
    unknown = isinstance(cause, (ConfigAttributeError, ConfigKeyError))
    if isinstance(exc, ConfigCompositionException) and unknown and key:
        given = [o for o in overrides if o.lstrip("+~").split("=", 1)[0].strip() == key]
        value = given[0].split("=", 1)[1] if given and "=" in given[0] else "..."
        others = [o for o in overrides if o not in given]
        if key.startswith(PASSED_ON):  # passed on as it is: adding it is what the user wants
            return f"{key} is not set by the config: to pass it on, add it: +{key}={value}"
        return f"unknown config key {key!r}{_advice(prog, key, value, config_name, others)}"
    if isinstance(cause, ValidationError) and key:  # a value of the wrong type (the schema's)
        return wrong_type(key, cause, overrides)
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if isinstance(cause, Exception) and str(cause).strip():
        lines.append(str(cause).strip().splitlines()[0])
    return " ".join(lines[:3])


def wrong_type(key: str, cause: ValidationError, overrides: Sequence[str]) -> str:
    """A value the typed schema (``sci_tasks.run_config``) refuses: the option as given,
    OmegaConf's reason, and the schema field that declares the type."""
    given = [o for o in overrides if o.lstrip("+~").split("=", 1)[0].strip() == key]
    option = given[-1].lstrip("+~") if given else f"{key}={cause.value!r}"
    reason = (str(cause.msg).strip().splitlines() or ["wrong type"])[0]
    schema = getattr(cause.object_type, "__name__", "")
    field = f"{schema}.{key.rpartition('.')[2]}" if schema else key
    return f"{option}: {reason} ({field} in sci_tasks/run_config.py)"


def _advice(prog: str, key: str, value: str, config_name: str, overrides: Sequence[str]) -> str:
    keys = closest_keys(key, valid_keys(config_name, overrides))
    if not keys:
        return f" ({prog} --cfg job shows every key)"
    return f": did you mean {' or '.join(keys)}? (e.g. {keys[0]}={value})"


def closest_keys(key: str, keys: Sequence[str], n: int = 3) -> list[str]:
    """Valid keys closest to ``key``: the same last name elsewhere (``batch_size`` ->
    ``model.batch_size``) or a similar one, those beside it (same parent) first."""
    parent, _, leaf = key.rpartition(".")
    scored = []
    for full in keys:
        where, _, name = full.rpartition(".")
        likeness = 1.0 if name == leaf else difflib.SequenceMatcher(None, leaf, name).ratio()
        if full != key and likeness >= 0.75:
            scored.append((where != parent, -likeness, len(full), full))
    return [full for *_, full in sorted(scored)[:n]]


def valid_keys(config_name: str, overrides: Sequence[str]) -> list[str]:
    """Every key of the packaged config (Hydra's own left out) composed with ``overrides``
    (without them when they do not compose, e.g. a sweep's comma lists)."""
    from hydra import compose, initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    for attempt in (list(overrides), []):
        GlobalHydra.instance().clear()
        try:
            with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
                cfg = compose(config_name, overrides=attempt)
            break
        except Exception:
            continue
    else:
        return []
    tree = OmegaConf.to_container(cfg, resolve=False)
    out: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                full = f"{path}.{k}" if path else str(k)
                if full != "hydra":
                    out.append(full)
                    walk(v, full)

    walk(tree, "")
    return out
