"""Approval: ask by default, "always allow" kept per server and revocable, Deny's result."""

from __future__ import annotations

from client.services.tools.approval import ApprovalChoice, ToolApproval, denied_result
from client.store.db import Database
from client.store.settings import Settings


def test_ask_by_default_and_always_allow_is_kept_per_server(db: Database) -> None:
    approval = ToolApproval(Settings(db))
    assert approval.needs_asking("demo", "add")
    assert approval.decide("demo", "add", ApprovalChoice.ALLOW_ONCE)
    assert approval.needs_asking("demo", "add")  # once is once
    assert approval.decide("demo", "add", ApprovalChoice.ALWAYS_ALLOW)
    again = ToolApproval(Settings(db))  # the next start
    assert not again.needs_asking("demo", "add")
    assert again.needs_asking("other", "add")  # the same tool name on another server
    assert again.allowed() == {"demo": ["add"]}


def test_revoking_and_a_removed_or_renamed_server(db: Database) -> None:
    approval = ToolApproval(Settings(db))
    approval.always_allow("demo", "add")
    approval.always_allow("demo", "slow_count")
    approval.revoke("demo", "add")
    assert approval.needs_asking("demo", "add") and not approval.needs_asking("demo", "slow_count")
    approval.forget_server("demo", renamed_to="tools")
    assert approval.allowed() == {"tools": ["slow_count"]}
    approval.forget_server("tools")
    assert approval.allowed() == {}


def test_deny_runs_nothing_and_tells_the_model() -> None:
    approval = ToolApproval(None)
    assert not approval.decide("demo", "add", ApprovalChoice.DENY)
    result = denied_result()
    assert (result.text, result.is_error, result.problem) == ("denied by the user", True, "denied")
