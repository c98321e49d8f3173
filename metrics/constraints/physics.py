"""Checkers of the physics constraints of the SciMIF catalogue: units and methods share one
implementation with the other disciplines (``unit_check.py``, ``methods.py``); the analysis
steps are judged (``judged.py``)."""

from __future__ import annotations

from sci_tasks.metrics.constraints.base import register, register_judged
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.unit_check import check_units

register("physics_unit_consistency")(check_units)
register("physics_method_constraint")(check_method)
register_judged(STEPS, "physics_analysis_steps_constraint")
