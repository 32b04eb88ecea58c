"""``hermes chat``: a terminal conversation driven by AgentSession, with history in the session store."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, TextIO

from hermes_core.errors import HermesError

HELP = """commands:
  /new              finish this session and start a fresh one
  /title TEXT       name this session
  /compress         compress the conversation now (continues in a linked session)
  /review           let the model save what is worth keeping from this conversation to memory
  /memory           show the built-in memory (live state)
  /sessions         list recent sessions
  /help             this list
  /exit, /quit      leave (Ctrl-D works too)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="model name (default: model.name in config.yaml or HERMES_MODEL)")
    parser.add_argument("--base-url", help="API base URL (default: model.base_url or HERMES_BASE_URL)")
    parser.add_argument("--resume", metavar="ID", help="continue a stored session")
    parser.add_argument("-q", "--query", help="ask one question, print the answer and exit")
    parser.add_argument("--no-stream", action="store_true", help="print the answer when it is complete")
    parser.set_defaults(func=cmd_chat)


def _context_length(value: Any) -> int:
    """``model.context_length`` as a positive number of tokens."""
    try:
        length = int(value or 128_000)
    except (TypeError, ValueError):
        length = 0
    if length <= 0:
        raise HermesError(f"model.context_length is {value!r}, not a number of tokens -> e.g. 'hermes config set model.context_length 128000'")
    return length


class ChatApp:
    """Everything a chat needs, opened once: plugins, model client, store, memory, engine, session."""

    def __init__(self, args: argparse.Namespace) -> None:
        from hermes_core.cli.sessions import open_session_store
        from hermes_core.manager import PluginManager

        self.plugins = PluginManager()
        self.plugins.load_all()
        self.store = open_session_store(self.plugins)  # before any network call: a bad state.db is reported first
        try:
            self._start(args)
        except BaseException:
            # a refused start (no model, a bad setting) leaves state.db as it was, without -wal/-shm files
            self.store.close()
            raise

    def _start(self, args: argparse.Namespace) -> None:
        from hermes_core.memory.manager import MemoryManager
        from hermes_core.models.clients import client_from_config
        from hermes_core.runtime.session import AgentSession

        self.client = client_from_config(
            self.plugins.config,
            model=args.model,
            base_url=args.base_url,
            request_middleware=self.plugins.middleware.get("anthropic_request", []),
        )
        self.memory = MemoryManager.from_plugins(self.plugins)
        engine = self.plugins.active_context_engine()
        context_length = _context_length(self.plugins.config.get("model.context_length", 128_000))
        if engine is not None:
            engine.update_model(self.client.model, context_length)
        else:
            selected = self.plugins.config.get("context.engine", "")
            print(
                f"warning: context.engine is {selected!r} but no loaded plugin provides it, so long conversations are not compressed "
                "-> 'hermes config set context.engine compressor' for the built-in, or 'hermes plugins list --load' to see why",
                file=sys.stderr,
            )
        self.session = AgentSession(
            plugins=self.plugins, client=self.client, store=self.store, memory=self.memory, context_engine=engine, model=self.client.model, platform="cli"
        )
        self.plugins.message_sink = None
        if args.resume:
            from hermes_core.cli.sessions_store import _session_or_fail

            row = _session_or_fail(self.store, args.resume) if args.resume.strip() else None  # a unique start of the id will do
            self.session.resume(row["id"] if row is not None else args.resume)
        else:
            self.session.start()

    def ask(self, text: str, stream: bool, out: TextIO | None = None) -> str:
        out = out or sys.stdout
        if stream:
            result = self.session.run_turn(text, stream=True, on_text=lambda delta: print(delta, end="", flush=True, file=out))
            print(file=out)
        else:
            result = self.session.run_turn(text)
            print(result.text, file=out)
        if result.compressed_into:
            print(f"(conversation compressed; continuing in session {result.compressed_into})", file=sys.stderr)
        return result.text

    def command(self, line: str) -> bool:
        """Handle a slash command; return False when the chat should end."""
        name, _, rest = line[1:].partition(" ")
        name = name.lower()
        if name in {"exit", "quit"}:
            return False
        if name == "help":
            print(HELP)
        elif name == "new":
            print(f"new session {self.session.reset()}")
        elif name == "title":
            stored = self.store.set_title(self.session.session_id, rest.strip() or None, auto_number=True)
            self.memory.on_session_title(stored or "")
            print(f"title: {stored}" if stored else "title cleared")
        elif name == "compress":
            before = self.session.session_id
            after = self.session.compress()
            if after == before:
                print(f"nothing to compress yet ({len(self.session.history)} messages; the first and last ones are always kept)")
            else:
                print(f"compressed; continuing in session {after}")
        elif name == "review":
            print("reviewing the conversation ...", file=sys.stderr, flush=True)
            review = self.session.start_background_review()
            print(f"review: {review.result().text}")
        elif name == "memory":
            provider = self.plugins.memory_providers.get("builtin")
            for target in ("memory", "user"):
                state = provider.live_state(target) if provider is not None else {"entries": [], "usage": "-"}
                print(f"{target.upper()} [{state['usage']}]")
                for entry in state["entries"]:
                    print("  " + entry.replace("\n", "\n    "))  # a line of an entry must not read as an entry
        elif name == "sessions":
            for row in self.store.list_sessions_rich(limit=10):  # a compression chain counts as one conversation
                print(f"{row['id']}  {row.get('title') or row.get('preview') or '-'}  {row.get('chain_message_count', row.get('message_count', 0))} messages")
        elif name in self.plugins.commands:
            try:
                answer = self.plugins.commands[name].handler(rest)
            except Exception as exc:  # a plugin's command must not end the chat
                raise HermesError(f"/{name} (from a plugin) failed: {type(exc).__name__}: {exc}") from exc
            if answer:
                print(answer)
        else:
            print(f"unknown command /{name}; /help lists them")
        return True

    def close(self) -> None:
        session_id = self.session.session_id
        self.session.finalize()
        self.memory.shutdown_all()
        # a session nothing was said in (the first question failed, or the user left at once) is
        # not kept: it would only clutter 'hermes sessions list'
        row = self.store.get_session(session_id) if session_id else None
        empty = row is not None and not row.get("message_count") and not row.get("parent_session_id") and not row.get("title")
        if empty:
            self.store.delete_session(session_id)
        self.store.close()
        if session_id and not empty:  # on stderr, so that `hermes chat -q` output stays just the answer
            print(f"session {session_id} (continue it with: hermes chat --resume {session_id})", file=sys.stderr)


def cmd_chat(args: argparse.Namespace) -> int:
    if args.query is not None and not args.query.strip():  # checked before any session is opened or model called
        raise HermesError("-q is empty: there is no question to send to the model -> give the question "
                          "(hermes chat -q 'How do I ...?'), or leave out -q to talk in turns")
    if args.query is not None:
        return _ask_once(args)
    app = ChatApp(args)
    stream = not args.no_stream
    try:
        print(f"hermes chat — session {app.session.session_id} with {app.client.model}; /help for commands, Ctrl-D to leave")
        while True:
            try:
                line = input("> ")
            except EOFError:
                print()
                return 0
            if not line.strip():
                continue
            try:
                if line.startswith("/"):
                    if not app.command(line.strip()):
                        return 0
                else:
                    app.ask(line, stream)
            except HermesError as exc:  # a failed turn or command is reported and the chat goes on
                print(f"hermes: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        app.close()


def _ask_once(args: argparse.Namespace) -> int:
    """``hermes chat -q``: stdout carries the answer alone, so that scripts can use it.

    Whatever plugins print meanwhile (a hook announcing the session, a tool's chatter) goes to stderr.
    """
    answer = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        app = ChatApp(args)
        try:
            app.ask(args.query, not args.no_stream, out=answer)
            return 0
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
        finally:
            app.close()
