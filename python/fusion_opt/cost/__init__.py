"""Cost model: target descriptions (data) and the pure time estimate of a fusion group."""
from __future__ import annotations

from .group import GroupView, TensorRef, group_view, view_of_ops
from .model import Cost, estimate, plan_cost, plan_costs, unfused_cost
from .targets import (CacheLevel, TargetDesc, describe_target, get_target_desc, list_target_descs, load_json,
                      save_json, with_calibration)

__all__ = ["CacheLevel", "Cost", "GroupView", "TargetDesc", "TensorRef", "describe_target", "estimate",
           "get_target_desc", "group_view", "list_target_descs", "load_json", "plan_cost", "plan_costs",
           "save_json", "unfused_cost", "view_of_ops", "with_calibration"]
