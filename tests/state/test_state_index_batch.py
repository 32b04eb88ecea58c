"""The index batch holds exactly what its plain form gives: the same appends, indexed once by
the store's code and once by the straightforward form of the Python half of a batch (the word
regex over folded text, a Counter per row, each tracked word of a row weighed in turn, counts
added word by word, every word of the batch walked for promotion), leave the same index tables
(their pages byte for byte) and impact lists."""
from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from hermes_plugins_builtin.state import SessionStore, impact_upkeep, indexing
from hermes_plugins_builtin.state.grams import document_grams, needs_grams
from hermes_plugins_builtin.state.ranking import _TOKEN, fold

INDEX_TABLES = ("messages_fts_data", "messages_fts_idx", "messages_fts_docsize", "messages_grams_data",
                "messages_grams_idx", "messages_grams_docsize", "rank_lists", "rank_terms", "state_meta")


def _plain_prepare(rows, pause=None):  # type: ignore[no-untyped-def]
    out = []
    for mid, text in rows:
        toks = _TOKEN.findall(fold(text)) if text else []
        grams = document_grams(text) if needs_grams(text) else None
        out.append(indexing.PreparedRow(mid, text, grams or None, len(toks), Counter(toks)))
    return out


def _plain_count_locally(self, documents, rows, seen):  # type: ignore[no-untyped-def]
    if self.batches == 0 and documents == 0:
        self.local, self.local_rows = Counter(), 0
    if self.local is None:
        return
    if documents != self.local_rows or len(self.local) > impact_upkeep.LOCAL_WORDS_MAX:
        self.local = None
        return
    for term, n in seen.items():
        self.local[term] = self.local.get(term, 0) + n
    self.local_rows += rows


def _plain_promote(conn, cache, seen, documents, avgdl, *, batches=1):  # type: ignore[no-untyped-def]
    if documents < impact_upkeep.TRACK_DF:
        return
    checks, tracked = cache.next_check, cache.words
    budget, builds = impact_upkeep.COUNTS_PER_BATCH * batches, batches
    for term, n in seen.items():
        if n < 2 or term in tracked or documents < checks.get(term, 0):
            continue
        row = conn.execute("SELECT df, checked_at FROM rank_terms WHERE term = ?", (term,)).fetchone()
        if row is not None and documents < impact_upkeep._next_check(row[0], row[1]):
            checks[term] = impact_upkeep._next_check(row[0], row[1])
            continue
        if budget == 0:
            return
        budget -= 1
        df = cache.document_frequency(conn, term)
        if df >= impact_upkeep.TRACK_DF and cache.local is not None:
            df = impact_upkeep._document_frequency(conn, term)
        checks[term] = impact_upkeep._next_check(df, documents)
        if df >= impact_upkeep.TRACK_DF:
            impact_upkeep._build_list(conn, term, df, documents, avgdl)
            builds -= 1
            if builds == 0:
                return
        else:
            conn.execute("INSERT OR REPLACE INTO rank_terms(term, df, checked_at, tracked, floor, listed) "
                         "VALUES (?, ?, ?, 0, 0, 0)", (term, df, documents))


def _plain_update_lists(conn, rows):  # type: ignore[no-untyped-def]
    if not rows:
        return
    documents, avgdl = impact_upkeep.averages(conn)
    cache = impact_upkeep._tracked(conn)
    tracked, names = cache.words, cache.names
    additions, added, batch_words = [], Counter(), []
    for mid, _text, _grams, dl, counts in rows:
        batch_words.extend(counts)
        norm = impact_upkeep.K1 * (1 - impact_upkeep.B) + impact_upkeep.K1 * impact_upkeep.B / avgdl * dl
        for term in names.intersection(counts):
            tf = counts[term]
            impact = tf * (impact_upkeep.K1 + 1) / (tf + norm)
            if impact > tracked[term][0]:
                additions.append((term, mid, tf, dl, impact))
                added[term] += 1
    if additions:
        conn.executemany("INSERT OR REPLACE INTO rank_lists(term, message_id, tf, dl, impact) VALUES (?, ?, ?, ?, ?)",
                         additions)
    for term, count in added.items():
        entry = tracked[term]
        entry[1] += count
        if entry[1] >= 2 * impact_upkeep.LIST_SIZE:
            entry[0] = impact_upkeep._trim(conn, term)
            entry[1] = impact_upkeep.LIST_SIZE
    seen = Counter(batch_words)
    cache.count_locally(documents, len(rows), seen)
    for term in names.intersection(seen):
        cache.df_pending[term] = cache.df_pending.get(term, 0) + seen[term]
    cache.batches += 1
    if cache.batches % impact_upkeep.DF_FLUSH_BATCHES == 0:
        conn.executemany("UPDATE rank_terms SET df = df + ? WHERE term = ?",
                         [(n, term) for term, n in cache.df_pending.items()])
        cache.df_pending.clear()
    _plain_promote(conn, cache, seen, documents, avgdl, batches=max(1, len(rows) // impact_upkeep.ROWS_PER_BUDGET))


def _messages(count: int) -> list[tuple[str, str, str | None, str | None]]:
    """(session, role, content, tool calls): English with a skewed vocabulary (so some words
    cross TRACK_DF and get lists), mixed case and punctuation, em dashes, CJK, emoji, accents,
    \\u escapes in tool-call arguments, empty contents."""
    rng = random.Random(20261125)
    vocab = [f"w{i}" for i in range(400)] + ["deploy", "Cache", "TIMEOUT", "café", "naïve", "x_y", "v2.1"]
    weights = [1 / (i + 1) for i in range(len(vocab))]
    cjk = ["数据库", "部署失败", "サーバー", "한국어", "ภาษาไทย"]
    out = []
    for i in range(count):
        words = rng.choices(vocab, weights, k=rng.randint(3, 40))
        if i % 5 == 0:
            words.insert(rng.randrange(len(words)), rng.choice(cjk))
        if i % 7 == 0:
            words.insert(rng.randrange(len(words)), "\u2014")
        if i % 11 == 0:
            words.append("\U0001f680 done!")
        content = None if i % 23 == 0 else " ".join(words) + rng.choice([".", "?", ";", ""])
        tools = json.dumps([{"name": "run", "arguments": {"q": rng.choice(cjk), "n": i}}]) if i % 9 == 0 else None
        out.append((f"s{i % 6}", "assistant" if i % 2 else "user", content, tools))
    return out


def _index_contents(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall() for table in INDEX_TABLES}
    finally:
        conn.close()


def _append_all(path: Path, messages: list[tuple[str, str, str | None, str | None]]) -> Counter[str] | None:
    with SessionStore(path, background_index=False) as store:
        for session in sorted({m[0] for m in messages}):
            store.create_session(session, "cli")
        for session, role, content, tools in messages:
            store.append_message(session, role, content, tool_calls=tools)
        assert store.wait_for_index()
        local = store._conn.rank_cache.local  # type: ignore[attr-defined]
        return Counter(local) if local is not None else None


def test_a_batch_leaves_the_same_index_and_lists_as_the_plain_form(tmp_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 60)  # lists built and words counted within the run
    messages = _messages(40 * indexing.BATCH_ROWS + 7)
    local = _append_all(tmp_path / "store.db", messages)
    with monkeypatch.context() as plain:
        plain.setattr(indexing, "prepare", _plain_prepare)
        plain.setattr(impact_upkeep._Tracked, "count_locally", _plain_count_locally)
        plain.setattr(indexing, "update_lists", _plain_update_lists)
        plain_local = _append_all(tmp_path / "plain.db", messages)
    ours, theirs = _index_contents(tmp_path / "store.db"), _index_contents(tmp_path / "plain.db")
    assert len(ours["messages_fts_docsize"]) == len(messages)
    assert len(ours["messages_grams_docsize"]) > 0
    assert sum(1 for row in ours["rank_terms"] if row[3] == 1) >= 5  # words with lists
    assert sum(1 for row in ours["rank_terms"] if row[3] == 0) >= 1  # words counted and not (yet) listed
    assert sum(1 for row in ours["rank_terms"] if row[4] > 0) >= 3  # full lists: rows weighed against a floor
    for table in INDEX_TABLES:
        assert ours[table] == theirs[table], table
    assert local is not None and local == plain_local


@pytest.mark.parametrize("text", ["Deploy the CACHE, now: v2.1_x-y!", "tab\tnew\nline\x1f\x0bend", "", "a",
                                  "__init__ 42abc\x00nul", "café naïve — 数据库 🚀 ﬁle"])
def test_the_word_tokens_are_the_regex_over_folded_text(text):
    from hermes_plugins_builtin.state.ranking import tokens

    assert tokens(text) == _TOKEN.findall(fold(text))
