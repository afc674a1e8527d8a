"""One line of `tachy doctor`'s report: what was checked, how it went, what to do."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    OK = "ok"
    FAIL = "FAIL"
    INFO = "info"  # said, never a failure: what is listening on a port, a skipped step


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def line(self) -> str:
        fix = f" Fix: {self.fix}" if self.status is Status.FAIL and self.fix else ""
        return f"{self.status.value:<4}  {self.name}: {self.detail}{fix}"


def ok(name: str, detail: str) -> Check:
    return Check(name, Status.OK, detail)


def fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, Status.FAIL, detail, fix)


def info(name: str, detail: str) -> Check:
    return Check(name, Status.INFO, detail)


def all_passed(checks: list[Check]) -> bool:
    return all(check.status is not Status.FAIL for check in checks)


def report(checks: list[Check]) -> str:
    return "\n".join(check.line() for check in checks)
