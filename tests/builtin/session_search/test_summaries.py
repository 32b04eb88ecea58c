"""Query-focused summaries from a real chat-completions server on 127.0.0.1, and the per-session fallbacks."""

from __future__ import annotations

import threading

import pytest

from hermes_core.testing_servers import OpenAIServer, RecordedRequest, Reply, error_reply, hang_reply, text_reply
from hermes_plugins_builtin.session_search import SYSTEM_PROMPT, SearchSettings, SessionSearch, SummaryTimeout, summarize_all


def user_text(request: RecordedRequest) -> str:
    return request.body["messages"][-1]["content"]


def by_session(answer):
    return {s["session_id"]: s for s in answer["sessions"]}


def summary_settings(server: OpenAIServer, **extra):
    return {"base_url": server.base_url, "model": "summary-mini", **extra}


class ConcurrencyGate:
    """A server script that holds each request until *bound* are in flight at once, recording the peak.

    With a client that keeps at most *bound* requests open, the peak is exactly *bound*;
    a client that sent more at once would push it higher. The wait has a timeout only so
    that a broken client fails the test instead of hanging it.
    """

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.requests = 0
        self.bound_reached = threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply:
        with self.lock:
            self.in_flight += 1
            self.requests += 1
            self.peak = max(self.peak, self.in_flight)
            if self.in_flight >= self.bound:
                self.bound_reached.set()
        try:
            self.bound_reached.wait(timeout=10)
            return text_reply("summary")
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture
def five_sessions(add_session):
    names = ["alpha", "bravo", "charlie", "delta", "echo"]
    for n, name in enumerate(names):
        add_session(name, [("user", f"the ansible playbook for {name} failed"), ("assistant", f"{name}: fix the inventory path")],
                    started_at=1_000 + n, title=f"Session {name}")
    return names


def test_each_session_is_summarised_with_a_query_focused_request(add_session, make_search, call):
    add_session("s1", [("user", "postgres vacuum is slow"), ("assistant", "tune autovacuum_vacuum_cost_limit")],
                started_at=1_700_000_000, title="DB tuning", source="cli")
    with OpenAIServer([text_reply("  The user fixed slow postgres vacuum by raising the cost limit.  ")], api_key="sk-aux") as server:
        answer = call(make_search(**summary_settings(server, api_key="sk-aux")), {"query": "postgres vacuum"})
    (session,) = answer["sessions"]
    assert session["mode"] == "summary" and "reason" not in session and "snippets" not in session
    assert session["summary"] == "The user fixed slow postgres vacuum by raising the cost limit."
    assert answer["summary_model"] == "summary-mini"
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-aux"
    body = request.body
    assert body["model"] == "summary-mini" and body["temperature"] == 0.1
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Focus on the query" in system["content"]
    prompt = user["content"]
    assert prompt.startswith("Search query: postgres vacuum\n")
    assert 'Session: s1 titled "DB tuning"' in prompt and "Started: 2023-11-14T22:13:20+00:00" in prompt
    assert "[USER] postgres vacuum is slow" in prompt and "[ASSISTANT] tune autovacuum_vacuum_cost_limit" in prompt
    assert prompt.rstrip().endswith("Summarise what this conversation says about: postgres vacuum")
    assert "was cut" not in prompt  # a short conversation goes whole


def test_a_long_conversation_is_cut_around_the_phrase_before_it_is_sent(add_session, make_search, call):
    chatter = [("user", f"small talk number {n} about the weather and nothing else at all") for n in range(200)]
    needle = ("assistant", "the root cause was the celery beat schedule drifting after daylight saving")
    add_session("long", [*chatter[:120], needle, *chatter[120:]], started_at=1_000)
    with OpenAIServer([text_reply("celery beat drift")]) as server:
        call(make_search(**summary_settings(server, max_chars=2_000)), {"query": "celery beat schedule"})
    prompt = user_text(server.requests[0])
    conversation = prompt[prompt.index("<conversation>\n") + 15 : prompt.index("\n</conversation>")]
    assert "was cut to the part around the matches" in prompt
    assert conversation.startswith("[... ") and conversation.endswith(" later characters omitted ...]")
    kept = conversation.split("omitted ...]\n", 1)[1].rsplit("\n[... ", 1)[0]
    assert len(kept) == 2_000
    at = kept.index("celery beat schedule")
    assert at == 500  # a quarter of the budget before the phrase, the rest after


def test_summary_requests_run_at_most_max_concurrency_at_once(five_sessions, make_search, call):
    gate = ConcurrencyGate(bound=2)
    with OpenAIServer(gate) as server:
        answer = call(make_search(**summary_settings(server, max_concurrency=2)), {"query": "ansible", "limit": 5})
    assert gate.requests == 5 and gate.peak == 2
    assert all(s["mode"] == "summary" for s in answer["sessions"])


def test_the_default_concurrency_is_three(five_sessions, make_search, call):
    gate = ConcurrencyGate(bound=3)
    with OpenAIServer(gate) as server:
        call(make_search(**summary_settings(server)), {"query": "ansible", "limit": 5})
    assert gate.requests == 5 and gate.peak == 3


def test_concurrency_above_five_is_capped_at_five(five_sessions, db_path, call):
    gate = ConcurrencyGate(bound=5)
    with OpenAIServer(gate) as server:
        config = {"auxiliary.session_search.max_concurrency": 9, "auxiliary.session_search.base_url": server.base_url,
                  "auxiliary.session_search.model": "m"}
        settings = SearchSettings.from_config(config)
        assert settings.max_concurrency == 5
        search = SessionSearch(db_path, settings)
        try:
            call(search, {"query": "ansible", "limit": 5})
        finally:
            search.close()
    assert gate.requests == 5 and gate.peak == 5


def test_a_failing_summary_falls_back_to_snippets_for_that_session_only(five_sessions, make_search, call):
    def script(request: RecordedRequest) -> Reply:
        if "Session: bravo" in user_text(request):
            return error_reply(500, "model overloaded")
        return text_reply("a summary")

    with OpenAIServer(script) as server:
        answer = call(make_search(**summary_settings(server)), {"query": "ansible", "limit": 5})
    sessions = by_session(answer)
    failed = sessions.pop("bravo")
    assert failed["mode"] == "snippets" and "summary" not in failed
    assert failed["reason"] == "summary unavailable: HTTP 500: model overloaded"
    assert failed["snippets"] and ">>>ansible<<<" in failed["snippets"][0]["text"]
    assert {s["mode"] for s in sessions.values()} == {"summary"} and len(sessions) == 4


def test_a_summary_that_times_out_falls_back_to_snippets_for_that_session_only(five_sessions, make_search, call):
    def script(request: RecordedRequest) -> Reply:
        return hang_reply() if "Session: charlie" in user_text(request) else text_reply("a summary")

    with OpenAIServer(script) as server:
        answer = call(make_search(**summary_settings(server, timeout=0.3)), {"query": "ansible", "limit": 5})
    sessions = by_session(answer)
    slow = sessions.pop("charlie")
    assert slow["mode"] == "snippets" and slow["reason"] == "summary unavailable: no answer within 0.3 s"
    assert {s["mode"] for s in sessions.values()} == {"summary"}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (text_reply(""), "the model returned an empty summary"),
        (Reply(body=b"<html>gateway</html>", content_type="text/html"), "the answer is not JSON"),
        (Reply(body=b'{"choices": []}'), "the answer is not a chat completion"),
    ],
)
def test_an_unusable_answer_falls_back_to_snippets(add_session, make_search, call, reply, reason):
    add_session("s", [("user", "consul service mesh")], started_at=1_000)
    with OpenAIServer([reply]) as server:
        (session,) = call(make_search(**summary_settings(server)), {"query": "consul"})["sessions"]
    assert session["mode"] == "snippets" and reason in session["reason"]


def test_an_unreachable_endpoint_falls_back_to_snippets(add_session, make_search, call):
    add_session("s", [("user", "consul service mesh")], started_at=1_000)
    with OpenAIServer([]) as server:
        base_url = server.base_url
    # the server is closed now: nothing listens on its port
    (session,) = call(make_search(base_url=base_url, model="m"), {"query": "consul"})["sessions"]
    assert session["mode"] == "snippets" and session["reason"].startswith("summary unavailable: request failed: ConnectError")


def test_all_summaries_share_one_deadline(five_sessions, make_search, call):
    with OpenAIServer(lambda request: hang_reply()) as server:
        answer = call(make_search(aggregate_timeout=0.3, **summary_settings(server, timeout=60, max_concurrency=2)),
                      {"query": "ansible", "limit": 5})
    # every session answers, with snippets, although one request alone could have taken 60 s
    assert [s["mode"] for s in answer["sessions"]] == ["snippets"] * 5
    for session in answer["sessions"]:
        assert session["reason"] == "summary unavailable: the 0.3 s budget for all summaries ran out"


def test_summarize_all_reports_jobs_left_when_the_deadline_passes():
    release = threading.Event()
    started: list[float] = []

    def blocked(timeout: float) -> str:
        started.append(timeout)
        release.wait()
        return "too late"

    try:
        outcomes = summarize_all([blocked, blocked, blocked], concurrency=1, request_timeout=30, aggregate_timeout=0.2)
    finally:
        release.set()
    assert len(started) == 1 and started[0] <= 0.2  # the one job that ran was given only what was left
    assert [o.summary for o in outcomes] == [None, None, None]
    assert all(o.timed_out and o.failure == "the 0.2 s budget for all summaries ran out" for o in outcomes)


def test_summarize_all_keeps_order_and_isolates_failures():
    def ok(text: str):
        return lambda timeout: text

    def late(timeout: float) -> str:
        raise SummaryTimeout("no answer within 1 s")

    def buggy(timeout: float) -> str:
        raise KeyError("choices")

    outcomes = summarize_all([ok("a"), late, buggy, ok("d")], concurrency=2, request_timeout=1)
    assert [o.summary for o in outcomes] == ["a", None, None, "d"]
    assert (outcomes[1].failure, outcomes[1].timed_out) == ("no answer within 1 s", True)
    assert outcomes[2].failure == "KeyError: 'choices'" and not outcomes[2].timed_out
    assert summarize_all([], concurrency=3, request_timeout=1) == []


def test_a_compression_chain_is_summarised_from_all_its_parts_with_copies_once(add_session, make_search, call):
    head = [("user", "the quokka service keeps crashing"), ("assistant", "quokka logs show an OOM")]
    add_session("p1", [*head, ("user", "raised the quokka memory limit to 2G")], started_at=1_000, ended=(1_100, "compression"))
    add_session("p2", [*head, ("assistant", "summary of the earlier turns")], started_at=1_100, parent="p1")
    with OpenAIServer([text_reply("They raised the limit.")]) as server:
        answer = call(make_search(**summary_settings(server)), {"query": "quokka"})
    (session,) = answer["sessions"]
    assert session["session_id"] == "p2" and session["summary"] == "They raised the limit."
    (request,) = server.requests  # one conversation, one summary
    text = user_text(request)
    assert "raised the quokka memory limit to 2G" in text  # only in the earlier part
    assert text.count("the quokka service keeps crashing") == 1 and "summary of the earlier turns" in text
