"""The per-connection read cache (readcache.py) and the gram postings built on it (postings.py).

Every test compares the default store with the same file opened with
``rank_window=None`` (FTS5 ranking every match, no cache involved), across the
changes that must keep or drop what the cache holds.
"""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_plugins_builtin.state import SessionStore, postings, readcache, search
from hermes_plugins_builtin.state.ranking import document_length
from hermes_plugins_builtin.state.readcache import ReadCache

QUERIES = ("部署", "数据库", "数据库 部署", "deploy", "deploy server", "deploy*", "deploy* server",
           "note server")
WORD_POSTINGS = {("messages_fts", '"deploy"'), ("messages_fts", '"server"'), ("messages_fts", '"deployment"')}
GRAM_POSTINGS = {("messages_grams", '"部署"'), ("messages_grams", '"数据 据库"')}


def _fill(store: SessionStore, session: str, rows: int, offset: int = 0) -> None:
    store.create_session(session, "cli")
    for i in range(rows):
        n = offset + i
        text = ("部署" * (1 + n % 3) + "，数据库" * (n % 2) + " 服务器" * (n % 5) + f" 第{n}次"
                + " deploy" * (n % 4) + " server" * (n % 3) + " deployment" * (n % 2) + f" note {n}")
        store.append_message(session, "user" if n % 2 else "assistant", text)


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # groups with more than a handful of matches take the postings path (at 100k messages
    # they have thousands): the small corpora here then exercise it
    monkeypatch.setattr(search, "MAX_SCORED", 4)
    path = tmp_path / "state.db"
    ours = SessionStore(path)
    exhaustive = SessionStore(path, rank_window=None)
    writer = SessionStore(path)
    yield path, ours, exhaustive, writer
    for s in (writer, exhaustive, ours):
        s.close()


def _ranked(store: SessionStore, query: str, **kw) -> list[tuple[int, float]]:
    return [(h.message_id, round(h.rank, 9)) for h in store.search(query, limit=20, **kw)]


def _same(ours: SessionStore, exhaustive: SessionStore, **kw) -> None:
    for query in QUERIES:
        assert _ranked(ours, query, **kw) == _ranked(exhaustive, query, **kw), query


def test_gram_postings_rank_exactly_like_fts5(stores):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 90)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive, role_filter="user")
    _same(ours, exhaustive, exclude_session_ids=["nobody"])
    assert set(ours._conn.read_cache.postings) >= GRAM_POSTINGS | WORD_POSTINGS


def test_rows_indexed_later_extend_the_cache_without_dropping_it(stores):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive)  # word postings are built from a group's second request on
    cache = ours._conn.read_cache
    drops = cache.drops
    postings_before = cache.postings[("messages_grams", '"部署"')]
    words_before = cache.postings[("messages_fts", '"deploy"')]
    # a short message dense in the term: the new best match for both indexes
    writer.create_session("b", "cli")
    best = writer.append_message("b", "user", "部署部署部署 deploy deploy server")
    _fill(writer, "c", 40, offset=60)
    writer.flush_search_index()
    assert ours.search("部署", limit=1)[0].message_id == best
    assert ours.search("deploy server", limit=1)[0].message_id == best
    _same(ours, exhaustive)
    assert cache.drops == drops, "new rows alone must not drop the cache"
    assert cache.postings[("messages_grams", '"部署"')] is postings_before and best in postings_before.entries
    assert cache.postings[("messages_fts", '"deploy"')] is words_before and best in words_before.entries


@pytest.mark.parametrize("how", ["delete", "prune", "delete and append"])
def test_deleting_rows_drops_the_cache(stores, how):
    _, ours, exhaustive, writer = stores
    _fill(writer, "old", 30)
    writer.create_session("top", "cli")
    top = writer.append_message("top", "user", "部署部署部署 deploy deploy server")
    _fill(writer, "keep", 40, offset=30)
    writer.flush_search_index()
    assert ours.search("部署", limit=1)[0].message_id == top
    drops = ours._conn.read_cache.drops
    if how == "prune":
        for sql in ("UPDATE sessions SET started_at = 0, ended_at = 1 WHERE id IN ('top', 'old')",
                    "UPDATE messages SET timestamp = 0 WHERE session_id IN ('top', 'old')"):
            writer._conn.execute(sql)
        assert writer.prune_sessions(older_than_s=3600) == 2
    else:
        assert writer.delete_session("top")
        if how == "delete and append":  # new rows indexed in the same interval must not hide the delete
            _fill(writer, "later", 40, offset=70)
            writer.flush_search_index()
    for query in QUERIES:
        assert top not in {h.message_id for h in ours.search(query)}, query
    _same(ours, exhaustive)
    assert ours._conn.read_cache.drops == drops + 1


def test_another_process_writes_and_deletes_are_seen(stores):
    path, ours, exhaustive, writer = stores
    _fill(writer, "a", 50)
    writer.flush_search_index()
    _same(ours, exhaustive)
    script = textwrap.dedent(f"""
        from hermes_plugins_builtin.state import SessionStore, postings, search
        with SessionStore({str(path)!r}) as store:
            store.create_session("p", "cli")
            for i in range(40):
                store.append_message("p", "user", "部署部署 deploy deploy server remote " + str(i))
            store.flush_search_index()
            store.delete_session("a")
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    sessions = {h.session_id for h in ours.search("部署", limit=50)}
    assert sessions == {"p"}
    _same(ours, exhaustive)


@pytest.fixture
def bare(tmp_path: Path):
    """A writing store, a plain connection to the same file and a read cache of its own."""
    path = tmp_path / "state.db"
    with SessionStore(path) as writer:
        conn = sqlite3.connect(path)
        yield writer, conn, ReadCache()
        conn.close()


def test_match_counts_follow_new_rows(bare):
    writer, conn, cache = bare
    _fill(writer, "a", 40)
    writer.flush_search_index()

    users = ("FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
             "WHERE messages_fts MATCH ? AND m.role = ?")

    def counted(cap: int) -> tuple[int, int]:
        conn.execute("BEGIN")
        upto = int(conn.execute("SELECT value FROM state_meta WHERE key = 'indexed_upto'").fetchone()[0])
        cache.refresh(conn, upto)
        got = cache.count(conn, "FROM messages_fts WHERE messages_fts MATCH ?", ('"deploy"',), cap, upto, "rowid")
        truth = conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'deploy'").fetchone()[0]
        # a filtered count (the row's role) is brought forward the same way
        by_users = cache.count(conn, users, ('"deploy"', "user"), 1000, upto, "messages_fts.rowid")
        ids = [r[0] for r in conn.execute(f"SELECT messages_fts.rowid {users} ORDER BY 1", ('"deploy"', "user"))]
        assert by_users == len(ids)
        assert cache.matching_ids(conn, users, ('"deploy"', "user"), 1000, upto, "messages_fts.rowid") == ids
        assert cache.matching_ids(conn, users, ('"deploy"', "user"), 3, upto, "messages_fts.rowid") is None
        conn.execute("COMMIT")
        return got, truth

    got, truth = counted(1000)
    assert got == truth == 30
    assert counted(10) == (11, 30)            # capped: at most cap + 1
    _fill(writer, "b", 40, offset=40)
    writer.flush_search_index()
    got, truth = counted(1000)
    assert got == truth == 60
    assert cache.drops == 0 and cache.counts[("FROM messages_fts WHERE messages_fts MATCH ?", ('"deploy"',))].upto > 40
    writer.delete_session("a")
    got, truth = counted(1000)
    assert got == truth == 30 and cache.drops == 1


def test_word_postings_are_built_only_for_a_group_asked_for_again(stores, monkeypatch):
    path, _, _, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    with SessionStore(path) as once:
        first = once.search("deploy server")
        for other in ("deploy note", "server note", "deploy* note"):  # each asked once: nothing built
            once.search(other)
        assert not [k for k in once._conn.read_cache.postings if k[0] == "messages_fts"]
        monkeypatch.setattr(postings, "BUILD_BUDGET", 1)  # one phrase per search
        assert once.search("deploy server") == first
        assert len([k for k in once._conn.read_cache.postings if k[0] == "messages_fts"]) == 1
        assert once.search("deploy server") == first
        assert {k for k in once._conn.read_cache.postings if k[0] == "messages_fts"} == {
            ("messages_fts", '"deploy"'), ("messages_fts", '"server"')}


def test_many_rows_indexed_at_once_are_folded_in_from_fts5_scores(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 50)
    writer.flush_search_index()
    _same(ours, exhaustive)
    monkeypatch.setattr(postings, "INVERT_AFTER_ROWS", 0)  # every catch-up reads bm25() of the new rows
    _fill(writer, "b", 50, offset=50)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive, role_filter="assistant")
    assert ours._conn.read_cache.postings[("messages_fts", '"deploy"')].upto == writer.message_count()


def test_a_phrase_with_too_many_matches_is_not_counted_again(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    monkeypatch.setattr(postings, "MAX_POSTINGS", 10)
    ours.search("note")  # the connection's first search
    ours.search("deploy server")
    ours.search("deploy server")  # asked again: postings are tried, and "deploy" has too many matches
    cache = ours._conn.read_cache
    assert isinstance(cache.postings[("messages_fts", '"deploy"')], postings.TooMany)
    statements: list[str] = []
    ours._conn.set_trace_callback(statements.append)
    assert _ranked(ours, "deploy server") == _ranked(exhaustive, "deploy server")
    ours._conn.set_trace_callback(None)
    assert not [s for s in statements if "bm25(messages_fts), d.sz" in s]
    assert not [s for s in statements if "count(*)" in s and "'\"deploy\"'" in s and "rowid >" not in s]


def test_a_long_absence_drops_the_cache_instead_of_checking_every_row(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 40)
    writer.flush_search_index()
    _same(ours, exhaustive)
    drops = ours._conn.read_cache.drops
    monkeypatch.setattr(readcache, "MAX_CHECKED_ROWS", 10)
    _fill(writer, "b", 40, offset=40)
    writer.flush_search_index()
    _same(ours, exhaustive)
    assert ours._conn.read_cache.drops == drops + 1


def test_the_least_recently_used_postings_make_room(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 80)
    writer.flush_search_index()
    ours.search("note")  # the connection's first search builds nothing
    _same(ours, exhaustive)
    _same(ours, exhaustive)
    cache = ours._conn.read_cache
    deploy, server = cache.postings[("messages_fts", '"deploy"')], cache.postings[("messages_fts", '"server"')]
    # room for the gram phrase about to be built and little else: the postings used longest ago go
    monkeypatch.setattr(postings, "MAX_CACHED_POSTINGS", len(deploy.entries) + len(server.entries) + 80)
    ours.search("deploy server")
    ours.search("服务器")
    held = {k for k, v in cache.postings.items() if isinstance(v, postings.Postings)}
    assert {("messages_fts", '"deploy"'), ("messages_fts", '"server"')} <= held
    assert ("messages_fts", '"deployment"') not in held
    assert not [k for k in cache.derived if '"deployment"' in k[2][0]]
    assert sum(len(cache.postings[k].entries) for k in held) <= postings.MAX_CACHED_POSTINGS
    _same(ours, exhaustive)


def test_newly_indexed_rows_are_read_once_and_in_full(bare):
    writer, conn, cache = bare
    _fill(writer, "a", 30)
    writer.flush_search_index()
    writer.delete_session("a")  # ids start after a gap
    _fill(writer, "b", 30, offset=30)
    writer.flush_search_index()
    everything = [r[0] for r in conn.execute("SELECT id FROM messages ORDER BY id")]
    low = everything[0] - 5
    first = cache.indexed_between(conn, low, everything[10])
    assert [r[0] for r in first] == everything[:11]
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    assert [r[0] for r in cache.indexed_between(conn, everything[3], everything[10])] == everything[4:11]
    assert not statements  # already read
    later = cache.indexed_between(conn, everything[10], everything[-1])
    assert [r[0] for r in later] == everything[11:] and len(statements) == 1
    text, folded, length = cache.recent[everything[-1]]
    size = conn.execute("SELECT sz FROM messages_fts_docsize WHERE id = ?", (everything[-1],)).fetchone()[0]
    assert folded == text.lower() and length == document_length(size) and length > 0


def _narrowed(cache: ReadCache) -> dict[tuple, postings.Postings]:
    return {k: v for k, v in cache.postings.items() if len(k) == 3 and isinstance(v, postings.Postings)}


def test_words_too_common_for_postings_are_ranked_from_postings_narrowed_to_their_group(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    # "deploy" (45 rows) and "server" (40) are too common; together they match 30 rows
    monkeypatch.setattr(postings, "MAX_POSTINGS", 32)
    for _ in range(3):  # the first search of a group builds nothing; the second builds its postings
        _same(ours, exhaustive)
    cache = ours._conn.read_cache
    assert isinstance(cache.postings[("messages_fts", '"server"')], postings.TooMany)
    narrowed = _narrowed(cache)
    server = next(p for k, p in narrowed.items() if k[1] == '"server"' and '"deploy"' in str(k[2]))
    assert len(server.entries) == 30 < server.df() == 40  # listed where "deploy" also is; BM25 counts all
    statements: list[str] = []
    ours._conn.set_trace_callback(statements.append)
    assert _ranked(ours, "deploy server") == _ranked(exhaustive, "deploy server")
    ours._conn.set_trace_callback(None)
    assert not [s for s in statements if "AS score" in s or "bm25(messages_fts), d.sz" in s]
    # rows indexed later are added to them (counted in Python, then from FTS5's scores of a batch)
    _fill(writer, "b", 30, offset=60)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive, role_filter="user")
    monkeypatch.setattr(postings, "INVERT_AFTER_ROWS", 0)
    _fill(writer, "c", 30, offset=90)
    writer.flush_search_index()
    _same(ours, exhaustive)
    assert server.upto == writer.message_count() and server.df() == 80 and server is next(
        p for k, p in _narrowed(cache).items() if k[1] == '"server"' and '"deploy"' in str(k[2]))


def test_a_group_with_too_many_matches_to_narrow_is_not_tried_again(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    monkeypatch.setattr(postings, "MAX_POSTINGS", 32)  # "note server" matches 40 rows
    for _ in range(2):
        ours.search("note server")
    cache = ours._conn.read_cache
    assert not [k for k in _narrowed(cache) if '"note"' in str(k[2])]
    statements: list[str] = []
    ours._conn.set_trace_callback(statements.append)
    assert _ranked(ours, "note server") == _ranked(exhaustive, "note server")
    ours._conn.set_trace_callback(None)
    assert not [s for s in statements if "count(*)" in s and "AND" in s and '"note"' in s]


def _held(store: SessionStore) -> dict[tuple[str, ...], postings.Postings]:
    return {k: p for k, p in store._conn.read_cache.postings.items() if isinstance(p, postings.Postings)}


def test_every_search_brings_all_cached_phrases_forward_in_one_pass(stores):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive)  # word postings are built from a group's second request on
    held = {k: p.upto for k, p in _held(ours).items()}
    assert {k[0] for k in held} == {"messages_fts", "messages_grams"}
    _fill(writer, "b", 6, offset=60)
    writer.flush_search_index()
    mark = writer.message_count()
    statements: list[str] = []
    ours._conn.set_trace_callback(statements.append)
    ours.search("note")  # a query of none of those phrases
    ours._conn.set_trace_callback(None)
    # word phrases all reach the new mark; gram phrases wait for their own searches
    assert {k: p.upto for k, p in _held(ours).items()} == {
        k: mark if k[0] == "messages_fts" else upto for k, upto in held.items()}
    assert not [s for s in statements if "bm25(" in s]  # counted from the new rows, no FTS5 query per phrase
    assert len([s for s in statements if "LEFT JOIN messages_fts_docsize d ON d.id = m.id WHERE m.id > " in s]) == 1
    _same(ours, exhaustive)
    _same(ours, exhaustive, role_filter="assistant")


def test_phrases_far_behind_are_left_to_the_search_that_uses_them(stores, monkeypatch):
    _, ours, exhaustive, writer = stores
    _fill(writer, "a", 60)
    writer.flush_search_index()
    _same(ours, exhaustive)
    _same(ours, exhaustive)
    before = {k: p.upto for k, p in _held(ours).items()}
    monkeypatch.setattr(postings, "INVERT_AFTER_ROWS", 3)
    _fill(writer, "b", 8, offset=60)
    writer.flush_search_index()
    ours.search("note")
    assert {k: p.upto for k, p in _held(ours).items()} == before
    _same(ours, exhaustive)  # each brought forward from FTS5's scores when its query runs
    assert {p.upto for p in _held(ours).values()} == {writer.message_count()}
