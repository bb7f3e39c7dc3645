"""Rules, one small unit each, grouped by family; the registry finds them all."""

from .registry import Hit, Rule, all_rules, get_rule, rule, runtime_rule

__all__ = ["Hit", "Rule", "all_rules", "get_rule", "rule", "runtime_rule"]
