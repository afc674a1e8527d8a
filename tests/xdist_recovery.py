"""pytest-xdist 3.8.0's `--dist loadgroup` hangs after a worker crashes: this mends it.

A worker that dies (a segfault in a test) is replaced, and the scheduler puts the dead
worker's whole workload back on the queue, every finished group with it. Those come
back as empty units, which no worker ever reports done, so the run stops at "98 %" and
waits forever (pytest-xdist#1378, #1323): a CI run ran out of its 90 minutes that way,
with no word of which test crashed. A lone one-test unit given to the new worker waits
for a second test that never comes (#1327). The fixes upstream (#1324, #1328, #1363,
#1371) are unreleased; these are theirs in short, for 3.8.0, and a run with a crash now
ends, failing, with the crashed test named. tests/test_xdist_recovery.py crashes a
worker on purpose to check it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdist.scheduler.loadscope import LoadScopeScheduling

if TYPE_CHECKING:
    from xdist.workermanage import WorkerController

Workload = dict[str, dict[str, bool]]


def _unfinished(workload: Workload) -> Workload:
    return {scope: unit for scope, unit in workload.items() if not all(unit.values())}


def _crashed_test(workload: Workload) -> str:
    return next(nodeid for unit in workload.values() for nodeid, done in unit.items() if not done)


def remove_node(self: LoadScopeScheduling, node: WorkerController) -> str | None:
    """The test the worker died in (xdist reports it failed; it is not run again), with
    only the groups it had not finished put back on the queue."""
    unfinished = _unfinished(self.assigned_work.pop(node))
    if not unfinished:
        return None
    crashed = _crashed_test(unfinished)
    unfinished[self._split_scope(crashed)][crashed] = True
    self.workqueue.update(_unfinished(unfinished))
    for other in self.assigned_work:
        self._reschedule(other)
    return crashed


def _reschedule(self: LoadScopeScheduling, node: WorkerController) -> None:
    """The original's rule, then more until the worker holds two tests or none are left
    (a worker runs a test only once it knows the next one, or that there is none)."""
    original_reschedule(self, node)
    if node in self.assigned_work and not node.shutting_down:
        if self._pending_of(self.assigned_work[node]) < 2:
            original_reschedule(self, node)


original_reschedule = LoadScopeScheduling._reschedule


def install() -> None:
    LoadScopeScheduling.remove_node = remove_node
    LoadScopeScheduling._reschedule = _reschedule


def pytest_configure() -> None:
    """As a plugin (`-p tests.xdist_recovery`), for runs outside this suite's conftest."""
    install()
