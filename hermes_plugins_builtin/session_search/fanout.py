"""Running the per-session summary requests: at most N at once, all of them within one shared deadline."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from .summary_client import SummaryError, SummaryTimeout

#: Seconds all summaries of one search may take together.
AGGREGATE_TIMEOUT_SECONDS = 90.0

#: A summary job: called with the seconds it may still take, returns the summary text.
SummaryJob = Callable[[float], str]


@dataclass(frozen=True)
class SummaryOutcome:
    """A summary, or why there is none (the session then falls back to snippets)."""

    summary: str | None = None
    failure: str | None = None
    timed_out: bool = False


def summarize_all(
    jobs: Sequence[SummaryJob],
    *,
    concurrency: int,
    request_timeout: float,
    aggregate_timeout: float = AGGREGATE_TIMEOUT_SECONDS,
) -> list[SummaryOutcome]:
    """Run *jobs* with at most *concurrency* in flight; one outcome per job, in order.

    Each job gets ``min(request_timeout, time left before the shared deadline)``, so
    a job still running when the deadline passes stops soon after instead of
    holding a worker thread for a full request timeout.
    """
    if not jobs:
        return []
    deadline = time.monotonic() + aggregate_timeout
    out_of_budget = f"the {aggregate_timeout:g} s budget for all summaries ran out"

    def run(job: SummaryJob) -> str:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SummaryTimeout(out_of_budget)
        if left >= request_timeout:
            return job(request_timeout)
        try:
            return job(left)
        except SummaryTimeout as exc:  # cut short by the shared deadline, not by its own timeout
            raise SummaryTimeout(out_of_budget) from exc

    executor = ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(jobs))), thread_name_prefix="session-search-summary")
    try:
        futures = [executor.submit(run, job) for job in jobs]
        _, late = wait(futures, timeout=max(0.0, deadline - time.monotonic()))
    finally:
        # never wait here for stragglers: the tool answers at the deadline with what it has
        executor.shutdown(wait=False, cancel_futures=True)
    outcomes: list[SummaryOutcome] = []
    for future in futures:
        if future in late:
            future.cancel()
            outcomes.append(SummaryOutcome(failure=out_of_budget, timed_out=True))
            continue
        error = future.exception()
        if error is None:
            outcomes.append(SummaryOutcome(summary=future.result()))
        elif isinstance(error, SummaryError):
            outcomes.append(SummaryOutcome(failure=str(error), timed_out=isinstance(error, SummaryTimeout)))
        else:  # a bug or an odd payload must cost one summary, not the whole search
            outcomes.append(SummaryOutcome(failure=f"{type(error).__name__}: {error}"))
    return outcomes
