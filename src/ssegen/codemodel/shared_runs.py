"""Run functions with equal bodies written once.

Messages whose plans compile to the same statements (OpenAI Responses' ``response.created``,
``response.in_progress`` and ``response.queued`` each record the response's id and model;
``reasoning_summary_text.delta`` and ``reasoning_text.delta`` each append a block's thinking)
share one run function: the first one's, its events typed as the union of their classes (the
body reads the same members of each, so it checks as precisely as each alone), and each class's
row of the runs table names it.
"""

from __future__ import annotations

from dataclasses import replace

from .accumulation import ApplyPlan


def shared_runs(
    plans: tuple[ApplyPlan, ...], runs: tuple[tuple[str, str], ...]
) -> tuple[tuple[ApplyPlan, ...], tuple[tuple[str, str], ...]]:
    """``(plans, runs)`` with the plans of equal bodies (statements, the lines before the loop and
    after it) merged into the first of them, typed with the union of their classes, and the runs
    table's rows (``(class, run function)``) naming the function kept.

    Args:
        plans: a channel's run functions, in order (:attr:`~.channels.ChannelSpec.plans`).
        runs: its runs table's rows (:attr:`~.channels.ChannelSpec.runs`).
    """
    groups: dict[tuple[tuple[str, ...], ...], list[ApplyPlan]] = {}
    for plan in plans:
        groups.setdefault((plan.statements, plan.before, plan.after), []).append(plan)
    kept: dict[str, str] = {p.function: group[0].function for group in groups.values() for p in group}
    merged = tuple(replace(g[0], cls=" | ".join(dict.fromkeys(p.cls for p in g))) for g in groups.values())
    return merged, tuple((cls, kept.get(run, run)) for cls, run in runs)
